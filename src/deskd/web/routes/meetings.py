"""Meetings: the list, and one meeting's transcript, attendance, owed replies and votes."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from deskd.service.meetings.views import meeting_list
from deskd.service.ops.console_views import meeting_detail
from deskd.web.console import as_int, console_of
from deskd.web.guard import Principal, now_of, reader
from deskd.web.render import page

router = APIRouter()


@router.get("/meetings")
def meetings_page(request: Request, who: Principal = Depends(reader)) -> Response:
    with console_of(request).desk(now_of(request)) as ctx:
        rows = meeting_list(ctx.conn, include_closed=True, role=None, now=ctx.now)
        return page(request, "meetings.html", ctx=ctx, meetings=rows)


@router.get("/meetings/{meeting_id}")
def meeting_page(request: Request, meeting_id: str, who: Principal = Depends(reader)) -> Response:
    number = as_int(meeting_id, "meeting")
    with console_of(request).desk(now_of(request)) as ctx:
        return page(request, "meeting.html", ctx=ctx, m=meeting_detail(ctx, number))
