"""The console's pages to read: the board with its gauges, one role, the desk-wide lists —
wakes (with filters and `wake explain`), pages with channels and silences, tasks and wake
hooks, usage (a bar per role per day), the event log — and meetings with one meeting's
transcript, attendance, owed replies and votes. And their live refresh: a server-sent event
stream that says ``change`` whenever the desk changed (``static/live.js`` then refetches the
page's live region)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from deskd.core.ladder import RUNGS
from deskd.core.values import PRIORITIES
from deskd.errors import InvalidValue
from deskd.service.desk.context import DeskContext
from deskd.service.desk.inbox import ledger
from deskd.service.desk.presence import role_presences
from deskd.service.engine.hooks import list_hooks
from deskd.service.engine.questions import questions
from deskd.service.engine.wake import explain_attempt, explain_role, list_wakes
from deskd.service.meetings.views import meeting_list
from deskd.service.ops.board import board, paused
from deskd.service.ops.console_views import (
    change_mark,
    ladder_history,
    meeting_detail,
    recent_events,
)
from deskd.service.ops.usage import usage_report
from deskd.service.paging.channels import channel_views, routes
from deskd.service.paging.pages import pages
from deskd.service.paging.silences import listing
from deskd.service.work.sessions import list_sessions
from deskd.service.work.tasks import list_tasks
from deskd.web.auth.guard import desk_of, reader
from deskd.web.console import Console, as_int, console_of
from deskd.web.render import ladder_svg, page

router = APIRouter(dependencies=[Depends(reader)])  # every page needs a reader
OUTCOMES = ("pending", "resolved", "superseded", "withdrawn", "failed")
REASONS = ("inbox", "urgent_task", "idle_task", "meeting", "owed_reply", "rollover", "help")


@router.get("/wakes")
def wakes_page(
    request: Request,
    role: str = "",
    rung: str = "",
    outcome: str = "",
    reason: str = "",
    explain: str = "",
    attempt: str = "",
) -> Response:
    filters = {"role": role, "rung": rung, "outcome": outcome, "reason": reason}
    choices = {"rung": tuple(RUNGS), "outcome": OUTCOMES, "reason": REASONS}
    for what, allowed in choices.items():
        if filters[what] and filters[what] not in allowed:
            raise InvalidValue(what, filters[what], "choose one of: " + ", ".join(allowed))
    with desk_of(request) as ctx:
        rows = list_wakes(
            ctx,
            role=role or None,
            open_only=outcome == "pending",
            limit=500,
            rung=rung,
            outcome=outcome,
            reason=reason,
        )
        lines: list[str] = []
        if explain:
            lines = explain_role(ctx, explain)
        elif attempt:
            lines = explain_attempt(ctx, as_int(attempt, "attempt"))
        return page(
            request,
            "wakes.html",
            ctx=ctx,
            wakes=rows,
            roles=ctx.desk.role_names,
            filters=filters,
            choices=choices,
            explain_for=explain or (f"attempt {attempt}" if attempt else ""),
            explain_lines=lines,
        )


@router.get("/pages")
def pages_page(request: Request) -> Response:
    with desk_of(request) as ctx:
        return page(
            request,
            "pages.html",
            ctx=ctx,
            pages=pages(ctx, open_only=False, limit=200),
            questions=questions(ctx),
            silences=listing(ctx, all_rows=True, limit=100),
            channels=channel_views(ctx.settings, ctx.desk, check=False),
            roles=ctx.desk.role_names,
        )


@router.get("/tasks")
def tasks_page(request: Request, all: str = "") -> Response:
    with desk_of(request) as ctx:
        return page(
            request,
            "tasks.html",
            ctx=ctx,
            tasks=list_tasks(ctx, role=None, status=None, include_closed=bool(all)),
            hooks=list_hooks(ctx, owner=None, include_closed=bool(all)),
            roles=ctx.desk.role_names,
            priorities=PRIORITIES,
            show_all=bool(all),
        )


@router.get("/usage")
def usage_page(request: Request, since: str = "") -> Response:
    with desk_of(request) as ctx:
        days = usage_report(ctx, by="day", since=since or None)
        return page(
            request,
            "usage.html",
            ctx=ctx,
            days=days,
            roles=usage_report(ctx, by="role", since=since or None),
            top=max([r["tokens"] for r in days["rows"]], default=0),
            since=since,
        )


@router.get("/events")
def events_page(request: Request, role: str = "", actor: str = "") -> Response:
    with desk_of(request) as ctx:
        if role:
            ctx.desk.role(role)
        return page(
            request,
            "events.html",
            ctx=ctx,
            events=recent_events(ctx, role=role or None, actor=actor or None, limit=200),
            filters={"role": role, "actor": actor},
        )


def gauges(ctx: DeskContext, data: Mapping[str, Any]) -> dict[str, Any]:
    """The numbers across the top of the board, each with whether it is bad news."""
    unwired = [r for r in ctx.desk.enabled_roles if not routes(ctx.settings, ctx.desk, r)]
    health = data["health"]
    # Each role's highest-level attempt (the first listed of equals: hence reversed).
    by_level = sorted(reversed(data["attempts"]), key=lambda a: a["level"])
    return {
        "open_pages": len(data["pages"]),
        "unwired": unwired,
        "tick_age_s": health["last_tick_age_s"],
        "tick_stale": health["tick_stale"],
        "tick_mode": health["last_tick_mode"],
        "tick_message": health["message"],
        "paused": data["paused"],
        "desk_paused": any(p["role"] is None for p in data["paused"]),
        "badges": sum(1 for a in data["attempts"] if a["badge"]),
        "stale_hosts": [h["name"] for h in data["hosts"] if h["stale"]],
        "live_by_role": {a["role"]: a for a in by_level},
    }


@router.get("/")
def board_page(request: Request) -> Response:
    with desk_of(request) as ctx:
        data = board(ctx)
        return page(request, "board.html", ctx=ctx, board=data, gauges=gauges(ctx, data))


@router.get("/roles/{role}")
def role_page(request: Request, role: str) -> Response:
    with desk_of(request) as ctx:
        ctx.desk.role(role)
        info = next((r for r in role_presences(ctx) if r["role"] == role), None)
        history = ladder_history(ctx, role)
        pauses = paused(ctx)
        return page(
            request,
            "role.html",
            ctx=ctx,
            role=role,
            info=info,
            timeline=ladder_svg(history, tz=ctx.tz),
            attempts=list_wakes(ctx, role=role, open_only=False, limit=50),
            explain=explain_role(ctx, role),
            sessions=list_sessions(ctx, role, limit=20),
            ledger=ledger(ctx, role=role, limit=50),
            tasks=list_tasks(ctx, role=role, status=None, include_closed=False),
            hooks=list_hooks(ctx, owner=role, include_closed=False),
            events=recent_events(ctx, role=role, limit=30),
            # Only the action the role's state allows is offered: pause or resume.
            pause=next((p for p in pauses if p["role"] == role), None),
            desk_pause=next((p for p in pauses if p["role"] is None), None),
        )


@router.get("/meetings")
def meetings_page(request: Request) -> Response:
    with desk_of(request) as ctx:
        rows = meeting_list(ctx.conn, include_closed=True, role=None, now=ctx.now)
        return page(request, "meetings.html", ctx=ctx, meetings=rows)


@router.get("/meetings/{meeting_id}")
def meeting_page(request: Request, meeting_id: str) -> Response:
    number = as_int(meeting_id, "meeting")
    with desk_of(request) as ctx:
        return page(request, "meeting.html", ctx=ctx, m=meeting_detail(ctx, number))


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
def live(request: Request) -> StreamingResponse:
    return StreamingResponse(
        stream(request, console_of(request)),
        media_type="text/event-stream",
        headers={"X-Accel-Buffering": "no"},
    )
