"""``POST /events/<source>``: events from other systems (GitHub, Alertmanager, any JSON
sender), outside the supervisor's login. Each source proves itself with its own secret
(service/ops/events_in.py); a body is read only up to the size limit."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from deskd.service.ops.events_in import MAX_EVENT_BYTES, EventRefused, receive
from deskd.web.auth.guard import Refused, now_of
from deskd.web.console import console_of

router = APIRouter()


@router.post("/events/{source}")
async def event(source: str, request: Request) -> JSONResponse:
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
