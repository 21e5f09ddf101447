"""How one launch went, read line by line: a frozen ``LaunchResult`` and the pure step
``read_line`` from one result to the next, with the writes each line calls for. The executor
applies those writes at the edge; keeping this apart keeps it table-testable."""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

from deskd.adapters.agents.base import SESSION, TURN
from deskd.core.usage import Usage

HEARTBEAT_EVERY_MS = 15_000
TAIL_LINES = 50


class LaunchResult(NamedTuple):
    """How one launch went; built up try by try and line by line, never changed in place."""

    attempt_id: int
    status: str
    landed: bool = False
    session_id: str | None = None
    failure_class: str | None = None
    detail: str = ""
    tries: int = 0
    exit_code: int | None = None
    timed_out: bool = False
    output_tail: tuple[str, ...] = ()
    last_beat: int = 0
    """When this try last recorded a stream heartbeat (they are throttled)."""
    reported_session: str | None = None
    """The resumable session a failed try's CLI reported: the next try resumes it."""
    assigned_session: str | None = None
    """The pre-assigned id of the first spawn (claude): a retry with no session reuses it."""
    usage: Usage = Usage()
    cost_usd: float | None = None
    """What the tries so far reported using: a retry's run adds to it."""

    def to_json(self) -> dict[str, object]:
        """What its ``launch.finished`` event and `deskd agent run --json` show: the fields up
        to ``exit_code`` (the rest is the executor's bookkeeping)."""
        shown = self._fields[: self._fields.index("exit_code") + 1]
        return {name: getattr(self, name) for name in shown}


class LineEffects(NamedTuple):
    """What one output line asks of the database: bind a session, land, or a heartbeat."""

    bind: str | None = None
    land: bool = False
    beat: bool = False


def read_line(
    result: LaunchResult,
    line: str,
    *,
    signals: Collection[str],
    native_id: str | None,
    streaming: bool,
    now: int,
) -> tuple[LaunchResult, LineEffects]:
    """The launch after one output line, and the writes it calls for.

    ``signals`` are what the adapter read in the line, ``native_id`` the session id it has
    seen so far and ``streaming`` whether structured events have arrived. A model turn lands
    the launch once; otherwise each event counts as a heartbeat, one per HEARTBEAT_EVERY_MS.
    """
    tail = (*result.output_tail, line)[-TAIL_LINES:]
    bind = native_id if SESSION in signals and native_id != result.session_id else None
    after = result._replace(output_tail=tail, session_id=bind or result.session_id)
    if TURN in signals and not result.landed:
        return after._replace(landed=True), LineEffects(bind=bind, land=True)
    if streaming and now - result.last_beat >= HEARTBEAT_EVERY_MS:
        return after._replace(last_beat=now), LineEffects(bind=bind, beat=True)
    return after, LineEffects(bind=bind)
