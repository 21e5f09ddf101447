"""A page's action links, with no login: the signed link is the authority for its one action.

GET shows what the link would do and a button; only the POST from that button acts. Chat
apps and mail scanners fetch every link to preview it, so a GET never changes anything
(service/ops/page_actions.py; docs/security.md, "Page links")."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from deskd.service.ops.page_actions import act_by_link, link_view
from deskd.web.auth.guard import now_of
from deskd.web.console import console_of
from deskd.web.render import page

router = APIRouter(prefix="/act")


@router.get("/{token}")
async def confirm(request: Request, token: str) -> Response:
    view = await run_in_threadpool(console_of(request).call, now_of(request), link_view, token)
    return page(request, "link.html", ctx=None, view=view, token=token, done="")


@router.post("/{token}")
async def act(request: Request, token: str) -> Response:
    done, view = await run_in_threadpool(
        console_of(request).call, now_of(request), act_by_link, token
    )
    return page(request, "link.html", ctx=None, view=view, token=token, done=done)
