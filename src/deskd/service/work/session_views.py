"""Sessions due to wind down at the desk-day boundary (the planner's ``rollovers``).

A live (working or resting) session started before the latest ``rollover_at`` boundary, in the
desk timezone, is due. A session with no native id cannot be resumed to wind it down; it is
left alone (the role's next spawn supersedes it). ``tries`` counts the key's wind-down launches
that ended without ending the session, read from the attempt ledger (store/handoffs.py
``rollover_tries``): after ``MAX_TRIES`` the demand stops launching and pages a person once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deskd.config.desk import Desk
from deskd.core.records import RolloverDue
from deskd.core.sessions import latest_boundary
from deskd.store.handoffs import live_sessions_started_before, rollover_tries

if TYPE_CHECKING:
    from deskd.store.dialect import Connection


def rollover_key(session_key: str) -> str:
    return f"rollover:{session_key}"


def load_rollovers(conn: Connection, desk: Desk, *, now: int) -> tuple[RolloverDue, ...]:
    boundary = latest_boundary(now, tz=desk.timezone, rollover_at=desk.section.rollover_at)
    out = []
    for s in live_sessions_started_before(conn, boundary):
        if not s.native_id:
            continue
        key = str(s.id)
        out.append(
            RolloverDue(
                role=s.role,
                session_key=key,
                started_at=s.started_at,
                tries=rollover_tries(conn, rollover_key(key)),
            )
        )
    return tuple(out)
