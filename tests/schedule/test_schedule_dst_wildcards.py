"""Wildcard cron schedules across DST: the rule Debian's cron and cronsim follow.

A schedule whose minute or hour field is *written* starting with ``*`` (``0 */2 * * *``,
``*/20 2 * * *``, ``30 * * * *``) runs in real time: it fires at every instant whose local
wall clock matches, so the skipped spring-forward hour has no fire (nothing is fired late at
the end of the gap) and both passes of a repeated fall-back hour fire. Any other schedule is
fixed-time (test_schedule_dst.py): a skipped slot fires once right after the gap, a repeated
slot once, at its first occurrence. The contrast rows below name the same minutes and hours
both ways.

The 2026 transitions used (test_schedule_dst.py checks these instants against zoneinfo):

| zone             | direction      | instant (UTC)        | wall clock                   |
|------------------|----------------|----------------------|------------------------------|
| America/New_York | spring forward | 2026-03-08 07:00:00Z | 01:59:59 EST -> 03:00:00 EDT |
| America/New_York | fall back      | 2026-11-01 06:00:00Z | 01:59:59 EDT -> 01:00:00 EST |
| Europe/London    | spring forward | 2026-03-29 01:00:00Z | 00:59:59 GMT -> 02:00:00 BST |
| Europe/London    | fall back      | 2026-10-25 01:00:00Z | 01:59:59 BST -> 01:00:00 GMT |
"""

from __future__ import annotations

import pytest
from schedule_cases import LONDON, NY, at, cron, local

from conftest import Desk
from deskd.schedule.rules import due, upcoming

# (zone, expression, after (local), the next fires as local wall clock)
TABLE = [
    # --- America/New_York, spring forward: 02:00-02:59 does not exist on 2026-03-08
    # every two hours: 02:00 never happened and 03:00 is not one of its hours
    (NY, "0 */2 * * *", "2026-03-07T23:00", ["03-08 00:00 EST", "03-08 04:00 EDT"]),
    # the same hours written as a list are fixed-time: 02:00 fires at the end of the gap
    (
        NY,
        "0 0-22/2 * * *",
        "2026-03-07T23:00",
        ["03-08 00:00 EST", "03-08 03:00 EDT", "03-08 04:00 EDT"],
    ),
    # a wildcard minute in a fixed hour: the skipped hour's minutes are simply skipped
    (NY, "*/20 2 * * *", "2026-03-08T00:00", ["03-09 02:00 EDT", "03-09 02:20 EDT"]),
    (NY, "* 2 * * *", "2026-03-08T00:00", ["03-09 02:00 EDT", "03-09 02:01 EDT"]),
    (NY, "0,20,40 2 * * *", "2026-03-08T00:00", ["03-08 03:00 EDT", "03-09 02:00 EDT"]),
    (NY, "30 * * * *", "2026-03-08T01:00", ["03-08 01:30 EST", "03-08 03:30 EDT"]),
    # --- America/New_York, fall back: 01:00-01:59 happens twice on 2026-11-01
    (
        NY,
        "*/30 1 * * *",
        "2026-11-01T00:00",
        ["11-01 01:00 EDT", "11-01 01:30 EDT", "11-01 01:00 EST", "11-01 01:30 EST"],
    ),
    (NY, "0,30 1 * * *", "2026-11-01T00:00", ["11-01 01:00 EDT", "11-01 01:30 EDT"]),
    (
        NY,
        "0 */1 * * *",
        "2026-11-01T00:30",
        ["11-01 01:00 EDT", "11-01 01:00 EST", "11-01 02:00 EST"],
    ),
    (NY, "0 0-23 * * *", "2026-11-01T00:30", ["11-01 01:00 EDT", "11-01 02:00 EST"]),
    # three real hours apart, as the clock says: hour 1 is not one of its hours
    (NY, "0 */2 * * *", "2026-10-31T23:30", ["11-01 00:00 EDT", "11-01 02:00 EST"]),
    # --- Europe/London, spring forward: 01:00-01:59 does not exist on 2026-03-29
    (LONDON, "*/15 1 * * *", "2026-03-29T00:00", ["03-30 01:00 BST", "03-30 01:15 BST"]),
    (LONDON, "0 1/2 * * *", "2026-03-29T00:00", ["03-29 02:00 BST", "03-29 03:00 BST"]),
    (LONDON, "0 */1 * * *", "2026-03-29T00:00", ["03-29 02:00 BST", "03-29 03:00 BST"]),
    (LONDON, "@hourly", "2026-03-29T00:30", ["03-29 02:00 BST", "03-29 03:00 BST"]),
    # --- Europe/London, fall back: 01:00-01:59 happens twice on 2026-10-25
    (
        LONDON,
        "*/30 1 * * *",
        "2026-10-25T00:00",
        ["10-25 01:00 BST", "10-25 01:30 BST", "10-25 01:00 GMT", "10-25 01:30 GMT"],
    ),
    (
        LONDON,
        "45 * * * *",
        "2026-10-25T00:50",
        ["10-25 01:45 BST", "10-25 01:45 GMT", "10-25 02:45 GMT"],
    ),
    (LONDON, "45 0-23 * * *", "2026-10-25T00:50", ["10-25 01:45 BST", "10-25 02:45 GMT"]),
]


@pytest.mark.parametrize(("tz", "expr", "after", "expected"), TABLE)
def test_it_fires_wildcard_schedules_in_real_time_by_the_table(
    tz: str, expr: str, after: str, expected: list[str]
) -> None:
    fires = upcoming(cron(expr, tz), after=at(after, tz), count=len(expected))
    assert [local(f, tz)[5:] for f in fires] == expected


def test_it_fires_nothing_late_for_wildcard_slots_lost_in_the_gap() -> None:
    # A tick at 03:05 EDT after downtime across the gap: the fixed-time hook owes its skipped
    # slots as one fire at 03:00; the wildcard hook owes nothing until its next real slot.
    since, now = at("2026-03-07T02:50"), at("2026-03-08T03:05")
    assert due(cron("*/10 2 * * *"), since=since, now=now).fire_at is None
    assert due(cron("0-50/10 2 * * *"), since=since, now=now).fire_at == at("2026-03-08T03:00")


def test_it_treats_both_spellings_alike_away_from_a_transition() -> None:
    start = at("2026-06-01T00:00")
    for wildcard, fixed in [("0 */2 * * *", "0 0-22/2 * * *"), ("*/20 2 * * *", "0,20,40 2 * * *")]:
        for tz in (NY, LONDON):
            assert upcoming(cron(wildcard, tz), after=start, count=30) == upcoming(
                cron(fixed, tz), after=start, count=30
            )


def test_hook_next_shows_the_spring_forward_day_through_the_cli(desk: Desk) -> None:
    desk.now = desk.now.replace(year=2026, month=3, day=7)
    desk.json("hook", "add", "--for", "alpha", "--title", "sweep", "--cron", "0 */2 * * *")
    fires = desk.json("hook", "next", "1", "--count", "14")["fires"]
    day = [f["local"][11:16] for f in fires if f["local"].startswith("2026-03-08")]
    assert day == ["00:00", "04:00", "06:00", "08:00", "10:00", "12:00", "14:00"]
