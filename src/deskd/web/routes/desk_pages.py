"""The desk-wide lists: wakes (with filters and `wake explain`), pages with channels and
silences, tasks and wake hooks, and the event log."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from deskd.core.values import PRIORITIES, RUNGS
from deskd.service.engine.hooks import list_hooks
from deskd.service.engine.wake import explain_attempt, explain_role, list_wakes
from deskd.service.ops.console_views import recent_events
from deskd.service.paging.channels import channel_views
from deskd.service.paging.pages import pages
from deskd.service.paging.silences import listing
from deskd.service.work.tasks import list_tasks
from deskd.web.console import as_int, console_of
from deskd.web.guard import Principal, now_of, reader
from deskd.web.render import page

router = APIRouter()
OUTCOMES = ("pending", "resolved", "superseded", "withdrawn", "failed")
REASONS = ("inbox", "urgent_task", "idle_task", "meeting", "owed_reply", "rollover", "help")


def _pick(value: str, choices: tuple[str, ...], what: str) -> str:
    from deskd.errors import InvalidValue

    if value and value not in choices:
        raise InvalidValue(what, value, "choose one of: " + ", ".join(choices))
    return value


@router.get("/wakes")
def wakes_page(
    request: Request,
    role: str = "",
    rung: str = "",
    outcome: str = "",
    reason: str = "",
    explain: str = "",
    attempt: str = "",
    who: Principal = Depends(reader),
) -> Response:
    _pick(rung, RUNGS, "rung")
    _pick(outcome, OUTCOMES, "outcome")
    _pick(reason, REASONS, "reason")
    with console_of(request).desk(now_of(request)) as ctx:
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
            filters={"role": role, "rung": rung, "outcome": outcome, "reason": reason},
            choices={"rung": RUNGS, "outcome": OUTCOMES, "reason": REASONS},
            explain_for=explain or (f"attempt {attempt}" if attempt else ""),
            explain_lines=lines,
        )


@router.get("/pages")
def pages_page(request: Request, who: Principal = Depends(reader)) -> Response:
    with console_of(request).desk(now_of(request)) as ctx:
        return page(
            request,
            "pages.html",
            ctx=ctx,
            pages=pages(ctx, open_only=False, limit=200),
            silences=listing(ctx, all_rows=True, limit=100),
            channels=channel_views(ctx.settings, ctx.desk, check=False),
            roles=ctx.desk.role_names,
        )


@router.get("/tasks")
def tasks_page(request: Request, all: str = "", who: Principal = Depends(reader)) -> Response:
    with console_of(request).desk(now_of(request)) as ctx:
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


@router.get("/events")
def events_page(
    request: Request, role: str = "", actor: str = "", who: Principal = Depends(reader)
) -> Response:
    with console_of(request).desk(now_of(request)) as ctx:
        if role:
            ctx.desk.role(role)
        return page(
            request,
            "events.html",
            ctx=ctx,
            events=recent_events(ctx, role=role or None, actor=actor or None, limit=200),
            filters={"role": role, "actor": actor},
        )
