"""Durations and instants as users type them (docs/contract.md "Values"), and their display.

Instants are Unix milliseconds (UTC) everywhere inside deskd.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from deskd.errors import InvalidValue

_DURATION = re.compile(r"\s*(\d+)\s*([smhd]?)\s*", re.ASCII)  # ASCII: not ² or ١
_UNIT_S = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
DURATION_HINT = "a duration like 90s, 5m, 2h, 1d or bare seconds"
MAX_DURATION_S = 3650 * 86400
"""The longest duration deskd accepts anywhere (an SLA, ``--every``, ``--for``, ``--loop``,
``--older-than``, a desk-file duration): 3650d, about ten years."""
MIN_INSTANT_MS = 0
MAX_INSTANT_MS = 221_845_392_000_000
"""Times are accepted from 1970-01-01T00:00:00Z to 9000-01-01T00:00:00Z: far enough that a
time plus the longest duration still prints (Python's datetime stops at year 9999)."""
TIME_RANGE = "between 1970-01-01 and 9000-01-01 (UTC)"


def parse_duration(text: str, *, what: str = "duration") -> int:
    """Seconds in ``text`` (``90s``, ``5m``, ``2h``, ``1d``, ``120``); refuses anything else,
    and anything longer than ``MAX_DURATION_S``."""
    match = _DURATION.fullmatch(str(text).lower())
    if not match:
        raise InvalidValue(what, _short(text), DURATION_HINT)
    digits = match.group(1).lstrip("0") or "0"
    if len(digits) > 12:  # before int(): Python refuses to convert 4,300+ digits at all
        raise InvalidValue(what, _short(text), f"at most {MAX_DURATION_S // 86400}d")
    return check_duration(int(digits) * _UNIT_S[match.group(2)], what=what, text=text)


def check_duration(seconds: int, *, what: str = "duration", text: object = None) -> int:
    """``seconds`` when within 0..MAX_DURATION_S; refused otherwise."""
    if not 0 <= seconds <= MAX_DURATION_S:
        shown = _short(text) if text is not None else seconds
        raise InvalidValue(what, shown, f"at most {MAX_DURATION_S // 86400}d")
    return seconds


def _short(text: object) -> str:
    raw = str(text)
    return raw if len(raw) <= 40 else raw[:37] + "..."


def parse_instant(text: str, *, tz: str, what: str = "time") -> int:
    """Unix ms of an ISO 8601 time; a naive time is read in the desk timezone ``tz``.
    Refused outside 1970-01-01 .. 9000-01-01 UTC (``MAX_INSTANT_MS``)."""
    raw = str(text).strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    try:
        value = datetime.fromisoformat(raw)
    except ValueError:
        raise InvalidValue(
            what, text, "an ISO 8601 time like 2026-12-01T09:30 or 2026-12-01T14:30:00Z"
        ) from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=ZoneInfo(tz))
    try:
        ms = to_ms(value)
    except (OverflowError, ValueError, OSError):
        raise InvalidValue(what, _short(text), TIME_RANGE) from None
    if not MIN_INSTANT_MS <= ms < MAX_INSTANT_MS:
        raise InvalidValue(what, _short(text), TIME_RANGE)
    return ms


def to_ms(value: datetime) -> int:
    return int(value.timestamp() * 1000)


def from_ms(ms: int, tz: str = "UTC") -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).astimezone(ZoneInfo(tz))


def iso_utc(ms: int | None) -> str | None:
    """The JSON form of an instant: ISO 8601 in UTC with a Z (docs/contract.md)."""
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def local_text(ms: int | None, tz: str) -> str:
    """A readable local time for tables: ``2026-12-01 09:30 EST``."""
    return "-" if ms is None else from_ms(ms, tz).strftime("%Y-%m-%d %H:%M %Z")


def human_age(seconds: float) -> str:
    """``45s``, ``3m``, ``2h 5m``, ``3d 4h``: the age of a heartbeat or an item."""
    s = int(max(0, seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        h, m = divmod(s // 60, 60)
        return f"{h}h {m}m" if m else f"{h}h"
    d, h = divmod(s // 3600, 24)
    return f"{d}d {h}h" if h else f"{d}d"


def duration_text(seconds: int) -> str:
    return human_age(seconds) if seconds else "0s"


def local_day_start(ms: int, tz: str) -> int:
    """Unix ms of local midnight (in ``tz``) of the day containing ``ms`` (lesson 26)."""
    return to_ms(from_ms(ms, tz).replace(hour=0, minute=0, second=0, microsecond=0))
