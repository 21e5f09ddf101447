"""Session rules: a role's presence, derived at read time from its latest session row
(docs/architecture.md "Presence"); the desk day, which sessions must wind down, the wind-down
sentinel.

The desk day starts at ``rollover_at`` local in the desk timezone, not at midnight and not in
UTC (lesson 26), so overnight work is not cut (docs/architecture.md "Sessions across desk
days").
"""

from __future__ import annotations

import json
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from deskd.core.timeparse import from_ms, to_ms
from deskd.errors import InvalidValue

PRESENCES: tuple[str, ...] = ("online", "suspect", "idle", "dead", "offline", "never")
BUSY: frozenset[str] = frozenset({"online", "suspect"})

DEFAULT_ONLINE_S = 120
DEFAULT_SUSPECT_S = 600

SENTINEL = "SESSION_DONE"
MAX_TRIES = 3
"""A wind-down that failed this many times stops launching and pages a person once."""


def presence_of(
    state: str | None,
    last_heartbeat_at: int | None,
    *,
    now: int,
    online_s: int = DEFAULT_ONLINE_S,
    suspect_s: int = DEFAULT_SUSPECT_S,
) -> str:
    """The presence of a role whose latest session is (``state``, ``last_heartbeat_at``).

    ``state`` is the session row's state (``working``, ``resting``, ``ended``,
    ``superseded``) or None when the role never had a session. Resting is not dying: a
    session that ended its turn stays ``idle`` however old its heartbeat.
    """
    if state is None or last_heartbeat_at is None:
        return "never"
    if state in ("ended", "superseded"):
        return "offline"
    if state == "resting":
        return "idle"
    age_ms = now - last_heartbeat_at
    if age_ms < online_s * 1000:
        return "online"
    if age_ms < suspect_s * 1000:
        return "suspect"
    return "dead"


def is_busy(presence: str) -> bool:
    return presence in BUSY


def parse_hhmm(text: str) -> time:
    try:
        hours, minutes = (int(p) for p in text.split(":"))
        return time(hour=hours, minute=minutes)
    except ValueError:
        raise InvalidValue("rollover_at", text, "a local time like 04:00") from None


def desk_day(ms: int, *, tz: str, rollover_at: str = "04:00") -> date:
    """The desk day ``ms`` belongs to: its local date, or the day before when it falls
    before ``rollover_at`` local."""
    local = from_ms(ms, tz)
    day = local.date()
    if local.time().replace(tzinfo=None) < parse_hhmm(rollover_at):
        day -= timedelta(days=1)
    return day


def latest_boundary(now: int, *, tz: str, rollover_at: str = "04:00") -> int:
    """The most recent rollover instant at or before ``now``; a session started before it
    belongs to an earlier desk day and winds down."""
    day = desk_day(now, tz=tz, rollover_at=rollover_at)
    return to_ms(datetime.combine(day, parse_hhmm(rollover_at), tzinfo=ZoneInfo(tz)))


def sentinel_seen(output: str) -> bool:
    """Whether the agent printed ``SESSION_DONE`` on a line of its own.

    The output is the launch's last stdout lines: structured JSON events (every string in
    them is searched, so any agent CLI's format works) or plain text.
    """
    for raw in output.splitlines():
        try:
            doc = json.loads(raw)
        except ValueError:
            doc = raw
        for text in _strings(doc):
            if any(line.strip() == SENTINEL for line in text.splitlines()):
                return True
    return False


def _strings(doc: Any) -> list[str]:
    if isinstance(doc, str):
        return [doc]
    if isinstance(doc, dict):
        return [s for v in doc.values() for s in _strings(v)]
    if isinstance(doc, list):
        return [s for v in doc for s in _strings(v)]
    return []


def prompt_with_handoff(prompt: str, *, note: str, written: str) -> str:
    """A role's desk prompt with the latest hand-off appended (for a fresh session)."""
    block = f"Hand-off from your previous session (written {written}):\n{note.strip()}"
    return f"{prompt}\n\n{block}" if prompt else block
