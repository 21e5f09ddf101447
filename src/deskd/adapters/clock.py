"""The one place deskd reads the wall clock. ``DESKD_NOW`` pins it for rehearsals and tests."""

from __future__ import annotations

import time

from deskd.core.timeparse import parse_instant


def now_ms(pinned: str | None = None, *, tz: str = "UTC") -> int:
    """Unix ms now, or the instant ``DESKD_NOW`` pins (ISO 8601; a naive time is read in the
    desk's time zone ``tz``, as ``--at`` and ``--due`` are)."""
    if pinned:
        return parse_instant(pinned, tz=tz, what="DESKD_NOW")
    return int(time.time() * 1000)
