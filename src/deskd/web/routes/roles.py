"""One role: presence, its ladder over time, sessions, ledger, tasks and wake hooks."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from deskd.service.desk.inbox import ledger
from deskd.service.desk.presence import role_presences
from deskd.service.engine.hooks import list_hooks
from deskd.service.engine.wake import explain_role, list_wakes
from deskd.service.ops.board import paused
from deskd.service.ops.console_views import ladder_history, recent_events
from deskd.service.work.sessions import list_sessions
from deskd.service.work.tasks import list_tasks
from deskd.web.console import console_of
from deskd.web.guard import Principal, now_of, reader
from deskd.web.render import page
from deskd.web.timeline import ladder_svg

router = APIRouter()


@router.get("/roles/{role}")
def role_page(request: Request, role: str, who: Principal = Depends(reader)) -> Response:
    with console_of(request).desk(now_of(request)) as ctx:
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
