"""Pausing the desk or a role: demand is still computed, nothing launches or pages."""

from __future__ import annotations

from deskd.errors import AlreadyPaused, InvalidValue, PeopleOnly
from deskd.service.desk.context import DeskContext
from deskd.store.pauses import end_pauses, insert_pause, live_pauses


def _actor(ctx: DeskContext, role: str | None) -> str:
    """Who pauses or resumes ``role`` (None: the desk), once the role is known."""
    if ctx.settings.role:
        # Pausing is a person's decision about the desk; an agent cannot pause itself out of work.
        raise PeopleOnly("pause and resume")
    if role is not None:
        ctx.desk.role(role)
    return ctx.actor


def pause(ctx: DeskContext, *, role: str | None, reason: str) -> int:
    by = _actor(ctx, role)
    if not reason.strip():
        raise InvalidValue("reason", reason, "say why")
    with ctx.write(role) as conn:  # a desk's pause (no role) is desk-wide
        if any(p.role == role for p in live_pauses(conn)):
            raise AlreadyPaused(role)
        pause_id = insert_pause(conn, role=role, reason=reason, by=by, now=ctx.now)
        ctx.event(conn, "paused", role=role, actor=by, detail={"reason": reason})
    return pause_id


def resume(ctx: DeskContext, *, role: str | None) -> int:
    by = _actor(ctx, role)
    with ctx.write(role) as conn:
        ended = end_pauses(conn, role=role, by=by, now=ctx.now)
        if ended:
            ctx.event(conn, "resumed", role=role, actor=by)
    return ended
