"""When a host has stopped ticking: ``DESKD_TICK_OVERDUE`` (default 3 minutes), the one
threshold every reader of host ticks asks here. A tick runs every minute; three missed minutes
is a stopped schedule, not a slow tick.
"""

from __future__ import annotations

from deskd.config.settings import Settings

DEFAULT_OVERDUE_S = 180


def overdue_after_s(settings: Settings) -> int:
    """Seconds without an executing tick after which a host is overdue (exit 2 when the
    setting is not a duration of at least a minute)."""
    text = (settings.tick_overdue or "").strip()
    if not text:
        return DEFAULT_OVERDUE_S
    from deskd.core.timeparse import parse_duration
    from deskd.errors import InvalidValue

    seconds = parse_duration(text, what="DESKD_TICK_OVERDUE")
    if seconds < 60:
        raise InvalidValue("DESKD_TICK_OVERDUE", text, "a duration of at least 1m, like 3m or 10m")
    return seconds


def is_overdue(last_tick_at: int | None, *, now: int, after_s: int) -> bool:
    """Whether a host whose last executing tick was at ``last_tick_at`` (ms) is overdue: no
    tick for ``after_s`` or longer (a never-ticked host is)."""
    return last_tick_at is None or now - last_tick_at >= after_s * 1000
