"""Helpers shared by the schedule tests: instants from local text and back."""

from __future__ import annotations

from deskd.core.timeparse import iso_utc, local_text, parse_instant
from deskd.schedule.rules import CronSpec, validate_cron

NY = "America/New_York"
LONDON = "Europe/London"
MIN = 60_000
HOUR = 60 * MIN
DAY = 24 * HOUR


def at(text: str, tz: str = NY) -> int:
    """Unix ms of ``text``; a naive time is local to ``tz`` (first occurrence when repeated)."""
    return parse_instant(text, tz=tz)


def cron(expr: str, tz: str = NY) -> CronSpec:
    return validate_cron(expr, tz=tz)


def local(ms: int, tz: str = NY) -> str:
    return local_text(ms, tz)


def utc(ms: int) -> str:
    text = iso_utc(ms)
    assert text is not None
    return text
