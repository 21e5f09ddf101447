"""`deskd wait --until STATE`: whether a role has reached a state, read once per call.

The loop that calls ``reached`` again until a deadline lives in the CLI (the one place that
reads the wall clock); this module only reads the database at the context's ``now``.
"""

from __future__ import annotations

from typing import NamedTuple

from deskd.core.sessions import is_busy
from deskd.errors import InvalidValue
from deskd.service.desk.context import DeskContext
from deskd.service.desk.presence import derive
from deskd.store import sessions as session_rows
from deskd.store.attempts import launches_in_flight, newest_launch

STATES = ("resting", "landed", "idle")
"""resting: its session ended its turn; landed: its newest launch took a model turn;
idle: nothing runs for it (no launch in flight, presence not online or suspect)."""


class Check(NamedTuple):
    reached: bool
    detail: str


def check_state(state: str) -> str:
    if state not in STATES:
        raise InvalidValue("--until", state, "choose one of: " + ", ".join(STATES))
    return state


def reached(ctx: DeskContext, role: str, state: str) -> Check:
    """Whether ``role`` is in ``state`` now, and what it is instead when not."""
    ctx.desk.role(role)
    check_state(state)
    session = session_rows.current_session(ctx.conn, role)
    presence = derive(ctx, session)
    if state == "resting":
        resting = session is not None and session.state == "resting"
        return Check(reached=resting, detail=f"presence {presence}")
    if state == "landed":
        launch = newest_launch(ctx.conn, role)
        if launch is None:
            return Check(reached=False, detail="no launch yet")
        landed = launch.landed_at is not None
        status = launch.launch_status
        return Check(
            reached=landed,
            detail=f"attempt {launch.id} {'landed' if landed else 'not landed'} ({status})",
        )
    flying = launches_in_flight(ctx.conn, role)
    idle = flying == 0 and not is_busy(presence)
    return Check(reached=idle, detail=f"presence {presence}, {flying} launch(es) in flight")
