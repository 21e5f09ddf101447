"""``GET /metrics``: the desk's Prometheus metrics, outside the supervisor's login.

A scraper holds no cookie and must never hold the supervisor's access code, so this route
has its own rule: a client on loopback (Prometheus or node_exporter on the same machine, or
a proxy that forwards its real client's address) reads it freely; any other client shows
the bearer token ``DESKD_METRICS_TOKEN``, and without one configured it is refused.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from deskd.service.ops.console import bearer_matches, is_loopback
from deskd.web.auth.guard import Refused, now_of
from deskd.web.console import console_of

router = APIRouter()


@router.get("/metrics")
def metrics(request: Request) -> Response:
    console = console_of(request)
    client = request.client.host if request.client is not None else ""
    if not is_loopback(client):
        _check_token(request, console.settings.metrics_token)
    from deskd.service.ops.metrics import CONTENT_TYPE, render

    return Response(console.call(now_of(request), render), media_type=CONTENT_TYPE)


def _check_token(request: Request, token: str | None) -> None:
    if not token:
        raise Refused(403, "/metrics off loopback needs DESKD_METRICS_TOKEN set on the console")
    if not bearer_matches(request.headers.get("authorization", ""), token):
        raise Refused(401, "/metrics: send Authorization: Bearer <DESKD_METRICS_TOKEN>")
