"""The routes outside the supervisor's login, each with its own authority: ``/act/<token>``
(a page's signed link), ``POST /events/<source>`` (each source's own secret) and
``GET /metrics`` (loopback, or a bearer token)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from deskd.service.ops.console import bearer_matches, is_loopback
from deskd.service.ops.events_in import MAX_EVENT_BYTES, EventRefused, receive
from deskd.service.ops.page_actions import act_by_link, link_view
from deskd.web.auth.guard import Refused, now_of
from deskd.web.console import console_of
from deskd.web.render import page

router = APIRouter()

# A page's action links: GET shows what the link would do and a button; only the POST from
# that button acts. Chat apps and mail scanners fetch every link to preview it, so a GET never
# changes anything (service/ops/page_actions.py; docs/security.md, "Page links").


@router.get("/act/{token}")
async def confirm(request: Request, token: str) -> Response:
    view = await run_in_threadpool(console_of(request).call, now_of(request), link_view, token)
    return page(request, "link.html", ctx=None, view=view, token=token, done="")


@router.post("/act/{token}")
async def act(request: Request, token: str) -> Response:
    done, view = await run_in_threadpool(
        console_of(request).call, now_of(request), act_by_link, token
    )
    return page(request, "link.html", ctx=None, view=view, token=token, done=done)


@router.post("/events/{source}")
async def event(source: str, request: Request) -> JSONResponse:
    """Events from other systems (GitHub, Alertmanager, any JSON sender); each source proves
    itself with its own secret (service/ops/events_in.py); a body is read only up to the
    size limit."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_EVENT_BYTES:
        raise Refused(413, f"body over {MAX_EVENT_BYTES} bytes")
    body = b""
    async for chunk in request.stream():  # a sender that lies about its length stops here
        body += chunk
        if len(body) > MAX_EVENT_BYTES:
            raise Refused(413, f"body over {MAX_EVENT_BYTES} bytes")
    headers = {k.lower(): v for k, v in request.headers.items()}
    console = console_of(request)
    try:
        done = await run_in_threadpool(
            console.call, now_of(request), receive, source, headers, body
        )
    except EventRefused as exc:
        raise Refused(exc.status, exc.message) from None
    return JSONResponse({"ok": True, **done})


@router.get("/metrics")
def metrics(request: Request) -> Response:
    """The desk's Prometheus metrics. A scraper holds no cookie and must never hold the
    supervisor's access code: a client on loopback (Prometheus or node_exporter on the same
    machine, or a proxy that forwards its real client's address) reads them freely; any other
    shows the bearer token ``DESKD_METRICS_TOKEN``, and without one configured is refused."""
    console = console_of(request)
    client = request.client.host if request.client is not None else ""
    if not is_loopback(client):
        token = console.settings.metrics_token
        if not token:
            raise Refused(403, "/metrics off loopback needs DESKD_METRICS_TOKEN set on the console")
        if not bearer_matches(request.headers.get("authorization", ""), token):
            raise Refused(401, "/metrics: send Authorization: Bearer <DESKD_METRICS_TOKEN>")
    from deskd.service.ops.metrics import CONTENT_TYPE, render

    return Response(console.call(now_of(request), render), media_type=CONTENT_TYPE)
