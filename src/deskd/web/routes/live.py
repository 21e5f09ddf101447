"""Live refresh: a server-sent event stream that says ``change`` whenever the desk changed
(``static/live.js`` then refetches the page's live region)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from deskd.service.ops.console_views import change_mark
from deskd.web.auth.guard import Principal, reader
from deskd.web.console import Console, console_of

router = APIRouter()
# A comment line now and then keeps proxies from closing an idle stream.
KEEPALIVE_POLLS = 15


async def stream(request: Request, console: Console) -> AsyncIterator[str]:
    last = await run_in_threadpool(change_mark, console.settings)
    yield "retry: 2000\nevent: hello\ndata: connected\n\n"
    polls = 0
    while console.stream_polls is None or polls < console.stream_polls:
        await asyncio.sleep(console.poll_s)
        polls += 1
        if await request.is_disconnected():
            return
        mark = await run_in_threadpool(change_mark, console.settings)
        if mark != last:
            last = mark
            yield f"event: change\ndata: {polls}\n\n"
        elif polls % KEEPALIVE_POLLS == 0:
            yield ": keepalive\n\n"


@router.get("/live")
def live(request: Request, who: Principal = Depends(reader)) -> StreamingResponse:
    return StreamingResponse(
        stream(request, console_of(request)),
        media_type="text/event-stream",
        headers={"X-Accel-Buffering": "no"},
    )
