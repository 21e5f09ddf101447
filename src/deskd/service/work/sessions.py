"""Sessions by hand: ``deskd session handoff`` and ``session list``."""

from __future__ import annotations

from typing import TypedDict

from deskd.core.sessions import desk_day
from deskd.core.timeparse import iso_utc, local_text
from deskd.errors import InvalidValue
from deskd.service.desk.context import DeskContext
from deskd.service.desk.identity import acting_role
from deskd.service.desk.inbox import check_length
from deskd.store import handoffs as handoff_rows
from deskd.store.sessions import LIVE_STATES, current_session, sessions_of

MAX_HANDOFF = 8 * 1024
"""A hand-off is read by the next session in its wake prompt (capped at 32 KiB overall)."""


class Handoff(TypedDict):
    """What ``session handoff`` answers: the stored hand-off and the session it closes."""

    id: int
    role: str
    session: int | None
    created_at: str | None


class SessionEntry(TypedDict):
    """One session of ``session list``."""

    id: int
    role: str
    native_id: str | None
    state: str
    started_at: str | None
    ended_at: str | None
    end_reason: str | None
    desk_day: str
    wakes: int
    cost_usd: float
    handoff: str | None
    started_local: str
    ended_local: str | None


def handoff(ctx: DeskContext, *, role: str | None, note: str) -> Handoff:
    """Store the hand-off the role's next session starts from."""
    who = acting_role(ctx, "--role", role)
    text = note.strip()
    if not text:
        raise InvalidValue("--note", note, "say what is open and the first next step")
    check_length("--note", text, MAX_HANDOFF)
    with ctx.write(who) as conn:
        live = current_session(conn, who)
        session = live.id if live is not None and live.state in LIVE_STATES else None
        by = ctx.settings.role or "operator"
        handoff_id = handoff_rows.insert_handoff(
            conn, role=who, session_id=session, note=text, by=by, now=ctx.now
        )
        ctx.event(
            conn,
            "session.handoff",
            f"session:{session}" if session else None,
            role=who,
            actor=by,
            detail={"handoff_id": handoff_id},
        )
    return {"id": handoff_id, "role": who, "session": session, "created_at": iso_utc(ctx.now)}


def list_sessions(ctx: DeskContext, role: str, *, limit: int = 50) -> list[SessionEntry]:
    """The role's sessions, newest first: start, end, wakes served, cost, hand-off."""
    ctx.desk.role(role)
    rows = sessions_of(ctx.conn, role, limit=limit)
    natives = [str(r.native_id) for r in rows if r.native_id]
    totals = handoff_rows.session_wake_totals(ctx.conn, role, natives)
    notes: dict[int, str] = {}
    for h in handoff_rows.handoffs_of(ctx.conn, role, limit=limit):
        if h.session_id is not None:
            notes.setdefault(int(h.session_id), h.note)
    out: list[SessionEntry] = []
    for r in rows:
        wakes, cost = totals.get(str(r.native_id), (0, 0.0))
        out.append(
            {
                "id": r.id,
                "role": role,
                "native_id": r.native_id,
                "state": r.state,
                "started_at": iso_utc(r.started_at),
                "ended_at": iso_utc(r.ended_at),
                "end_reason": r.end_reason,
                "desk_day": desk_day(
                    r.started_at, tz=ctx.tz, rollover_at=ctx.desk.section.rollover_at
                ).isoformat(),
                "wakes": wakes,
                "cost_usd": round(cost, 4),
                "handoff": notes.get(r.id),
                "started_local": local_text(r.started_at, ctx.tz),
                "ended_local": local_text(r.ended_at, ctx.tz) if r.ended_at else None,
            }
        )
    return out
