"""A budget's period follows the desk's time zone: the local day, the week from Monday, the
month from the 1st, across a DST change; a rolling window ends nowhere."""

from __future__ import annotations

from deskd.core.timeparse import iso_utc, parse_instant
from deskd.service.engine.budgets import period_bounds

NY = "America/New_York"


def bounds(period: str, when: str, window_s: int | None = None) -> tuple[str | None, ...]:
    start, end = period_bounds(period, parse_instant(when, tz="UTC"), NY, window_s)
    return iso_utc(start), iso_utc(end)


def test_day_week_and_month_are_local() -> None:
    # 2026-11-03 03:00Z is still 2 November (a Monday) in New York.
    assert bounds("day", "2026-11-03T03:00:00Z") == ("2026-11-02T05:00:00Z", "2026-11-03T05:00:00Z")
    assert bounds("week", "2026-11-08T12:00:00Z") == (
        "2026-11-02T05:00:00Z",
        "2026-11-09T05:00:00Z",
    )
    # November begins in daylight time (UTC-4) and ends in standard time (UTC-5).
    assert bounds("month", "2026-11-15T12:00:00Z") == (
        "2026-11-01T04:00:00Z",
        "2026-12-01T05:00:00Z",
    )
    assert bounds("month", "2026-12-31T12:00:00Z")[1] == "2027-01-01T05:00:00Z"


def test_a_window_rolls() -> None:
    assert bounds("window", "2026-12-01T14:00:00Z", 5 * 3600) == ("2026-12-01T09:00:00Z", None)
