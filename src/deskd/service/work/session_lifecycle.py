"""What happens after a launch for the session lifecycle: a ``rollover`` launch ends its
session only when both proofs are there — the agent printed the ``SESSION_DONE`` sentinel and
a hand-off was stored since the launch started. Otherwise the session stays live and the try
counts (derived from the ledger, service/engine/snapshot.py): the next tick re-arms the
wind-down (up to ``MAX_TRIES``, then it pages a person once)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deskd.core.sessions import sentinel_seen
from deskd.service.desk.context import DeskContext
from deskd.store import handoffs as handoff_rows
from deskd.store.events import add_event
from deskd.store.sessions import LIVE_STATES, end_session

if TYPE_CHECKING:
    from deskd.core.records import Attempt
    from deskd.store.dialect import Connection


def after_launch(
    ctx: DeskContext, attempt: Attempt, *, output_tail: str, landed: bool, now: int
) -> None:
    """Called by the executor when a launch has finished, with the last stdout lines."""
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
    role = row.role
    started = int(row.launched_at or row.planned_at or row.attempted_at)
    handoff = handoff_rows.latest_handoff(conn, role)
    handed_off = handoff is not None and handoff.created_at >= started
    done = sentinel_seen(output_tail)
    if done and handed_off:
        end_session(conn, session_id, now=now, reason="rollover")
        add_event(
            conn,
            at=now,
            kind="session.rolled_over",
            role=role,
            subject=f"session:{session_id}",
            detail={"attempt_id": row.id, "handoff_id": handoff.id if handoff else None},
        )
        return
    missing = [
        *([] if landed else ["the launch never landed"]),
        *([] if done else ["no SESSION_DONE line"]),
        *([] if handed_off else ["no hand-off stored since the launch"]),
    ]
    add_event(
        conn,
        at=now,
        kind="rollover.try_failed",
        role=role,
        subject=f"session:{session_id}",
        detail={"attempt_id": row.id, "missing": missing},
    )
