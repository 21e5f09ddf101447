"""Sessions by hand (``deskd session handoff`` and ``session list``), and what a finished
``rollover`` launch does to its session: it ends the session only when both proofs are there
— the agent printed the ``SESSION_DONE`` sentinel and a hand-off was stored since the launch
started. Otherwise the session stays live and the try counts (derived from the ledger,
service/engine/snapshot.py): the next tick re-arms the wind-down (up to ``MAX_TRIES``, then it
pages a person once)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deskd.core.sessions import desk_day, sentinel_seen
from deskd.core.timeparse import iso_utc, local_text
from deskd.errors import InvalidValue
from deskd.service.desk.context import DeskContext
from deskd.service.desk.identity import acting_role
from deskd.service.desk.inbox import check_length
from deskd.store import handoffs as handoff_rows
from deskd.store.events import add_event
from deskd.store.records import JSON, shown
from deskd.store.sessions import LIVE_STATES, current_session, end_session, sessions_of

if TYPE_CHECKING:
    from deskd.core.records import Attempt
    from deskd.store.dialect import Connection

MAX_HANDOFF = 8 * 1024
"""A hand-off is read by the next session in its wake prompt (capped at 32 KiB overall)."""


def handoff(ctx: DeskContext, *, role: str | None, note: str) -> JSON:
    """Store the hand-off the role's next session starts from; answers the stored hand-off
    (``id``, ``role``, ``created_at``) and the ``session`` it closes."""
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
        subject = f"session:{session}" if session else None
        detail = {"handoff_id": handoff_id}
        ctx.event(conn, "session.handoff", subject, role=who, actor=by, detail=detail)
    return {"id": handoff_id, "role": who, "session": session, "created_at": iso_utc(ctx.now)}


_SHOWN = "id role native_id state started_at ended_at end_reason"


def list_sessions(ctx: DeskContext, role: str, *, limit: int = 50) -> list[JSON]:
    """The role's sessions (``session list``), newest first: start, end, wakes served, cost,
    hand-off."""
    ctx.desk.role(role)
    rows = sessions_of(ctx.conn, role, limit=limit)
    natives = [str(r.native_id) for r in rows if r.native_id]
    totals = handoff_rows.session_wake_totals(ctx.conn, role, natives)
    notes: dict[int, str] = {}
    for h in handoff_rows.handoffs_of(ctx.conn, role, limit=limit):
        if h.session_id is not None:
            notes.setdefault(int(h.session_id), h.note)
    out: list[JSON] = []
    for r in rows:
        wakes, cost = totals.get(str(r.native_id), (0, 0.0))
        out.append(
            {
                **shown(r, _SHOWN, iso="started_at ended_at"),
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


def after_launch(
    ctx: DeskContext, attempt: Attempt, *, output_tail: str, landed: bool, now: int
) -> None:
    carried = handoff_rows.launch_attempts(ctx.conn, attempt.id)
    if not any(r.kind == "rollover" for r in carried):
        return
    with ctx.write(attempt.role) as conn:
        for row in handoff_rows.launch_attempts(conn, attempt.id):
            if row.kind == "rollover":
                _settle(conn, row, output_tail=output_tail, landed=landed, now=now)


def _settle(conn: Connection, row: Attempt, *, output_tail: str, landed: bool, now: int) -> None:
    session_id = int(row.key.split(":", 1)[1])
    session = handoff_rows.get_session(conn, session_id)
    if session is None or session.state not in LIVE_STATES:
        return
    started = int(row.launched_at or row.planned_at or row.attempted_at)
    handoff = handoff_rows.latest_handoffs(conn, [row.role]).get(row.role)
    handed_off = handoff is not None and handoff.created_at >= started
    done = sentinel_seen(output_tail)
    if done and handed_off:
        end_session(conn, session_id, now=now, reason="rollover")
        kind = "session.rolled_over"
        detail: dict[str, object] = {"attempt_id": row.id, "handoff_id": handoff and handoff.id}
    else:
        missing = [
            *([] if landed else ["the launch never landed"]),
            *([] if done else ["no SESSION_DONE line"]),
            *([] if handed_off else ["no hand-off stored since the launch"]),
        ]
        kind, detail = "rollover.try_failed", {"attempt_id": row.id, "missing": missing}
    add_event(
        conn, at=now, kind=kind, role=row.role, subject=f"session:{session_id}", detail=detail
    )
