"""Cron across DST transitions, in both directions, in two zones (lesson 24).

The real 2026 transitions these tables are built on (checked against zoneinfo below):

| zone             | direction      | instant (UTC)        | wall clock                        |
|------------------|----------------|----------------------|-----------------------------------|
| America/New_York | spring forward | 2026-03-08 07:00:00Z | 01:59:59 EST -> 03:00:00 EDT      |
| America/New_York | fall back      | 2026-11-01 06:00:00Z | 01:59:59 EDT -> 01:00:00 EST      |
| Europe/London    | spring forward | 2026-03-29 01:00:00Z | 00:59:59 GMT -> 02:00:00 BST      |
| Europe/London    | fall back      | 2026-10-25 01:00:00Z | 01:59:59 BST -> 01:00:00 GMT      |

Rules: a fixed-time slot in the skipped hour fires once, right after the gap; a fixed-time
slot in the repeated hour fires once, at its first occurrence; a schedule whose minute or hour
field starts with ``*`` fires in real time (both passes of the repeated hour, nothing in the
skipped one). More wildcard rows: test_schedule_dst_wildcards.py.

Last, a hypothesis round trip near those instants: the fires found walking forward are the
fires found walking back, over a few dozen expressions.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from schedule_cases import DAY, LONDON, NY, at, cron, local, utc

from deskd.schedule.rules import due, next_fire, upcoming

TRANSITIONS = [
    (NY, "2026-03-08T07:00:00Z", "2026-03-08 01:59 EST", "2026-03-08 03:00 EDT"),
    (NY, "2026-11-01T06:00:00Z", "2026-11-01 01:59 EDT", "2026-11-01 01:00 EST"),
    (LONDON, "2026-03-29T01:00:00Z", "2026-03-29 00:59 GMT", "2026-03-29 02:00 BST"),
    (LONDON, "2026-10-25T01:00:00Z", "2026-10-25 01:59 BST", "2026-10-25 01:00 GMT"),
]


@pytest.mark.parametrize(("tz", "instant", "before", "after"), TRANSITIONS)
def test_it_builds_on_the_real_transition_instants(
    tz: str, instant: str, before: str, after: str
) -> None:
    moment = datetime.fromisoformat(instant).astimezone(UTC)
    zone = ZoneInfo(tz)
    assert (moment - timedelta(seconds=1)).astimezone(zone).strftime("%Y-%m-%d %H:%M %Z") == before
    assert moment.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z") == after


# (zone, expression, after (local, or UTC with Z), the next fires as local wall clock)
TABLE = [
    # --- America/New_York, spring forward: 02:00-02:59 does not exist on 2026-03-08
    (NY, "30 2 * * *", "2026-03-07T12:00", ["03-08 03:00 EDT", "03-09 02:30 EDT"]),
    (NY, "0 2 * * *", "2026-03-07T12:00", ["03-08 03:00 EDT", "03-09 02:00 EDT"]),
    (NY, "0,20,40 2 * * *", "2026-03-08T00:00", ["03-08 03:00 EDT", "03-09 02:00 EDT"]),
    (NY, "0,30 2,3 * * *", "2026-03-08T00:00", ["03-08 03:00 EDT", "03-08 03:30 EDT"]),
    (
        NY,
        "15 6 * * *",
        "2026-03-07T00:00",
        ["03-07 06:15 EST", "03-08 06:15 EDT", "03-09 06:15 EDT"],
    ),
    (
        NY,
        "30 * * * *",
        "2026-03-08T00:00",
        ["03-08 00:30 EST", "03-08 01:30 EST", "03-08 03:30 EDT"],
    ),
    (
        NY,
        "*/30 * * * *",
        "2026-03-08T00:40",
        ["03-08 01:00 EST", "03-08 01:30 EST", "03-08 03:00 EDT", "03-08 03:30 EDT"],
    ),
    (NY, "0 3 * * *", "2026-03-08T00:00", ["03-08 03:00 EDT", "03-09 03:00 EDT"]),
    # --- America/New_York, fall back: 01:00-01:59 happens twice on 2026-11-01
    (NY, "30 1 * * *", "2026-10-31T12:00", ["11-01 01:30 EDT", "11-02 01:30 EST"]),
    (NY, "0 1 * * *", "2026-10-31T12:00", ["11-01 01:00 EDT", "11-02 01:00 EST"]),
    (
        NY,
        "0-59/20 1 * * *",
        "2026-11-01T00:00",
        ["11-01 01:00 EDT", "11-01 01:20 EDT", "11-01 01:40 EDT", "11-02 01:00 EST"],
    ),
    (NY, "0 2 * * *", "2026-11-01T00:00", ["11-01 02:00 EST", "11-02 02:00 EST"]),
    (
        NY,
        "15 6 * * *",
        "2026-10-31T00:00",
        ["10-31 06:15 EDT", "11-01 06:15 EST", "11-02 06:15 EST"],
    ),
    (
        NY,
        "30 * * * *",
        "2026-11-01T00:00",
        ["11-01 00:30 EDT", "11-01 01:30 EDT", "11-01 01:30 EST", "11-01 02:30 EST"],
    ),
    (
        NY,
        "*/15 * * * *",
        "2026-11-01T01:40",
        ["11-01 01:45 EDT", "11-01 01:00 EST", "11-01 01:15 EST", "11-01 01:30 EST"],
    ),
    # from inside the second pass of the repeated hour (01:10 EST)
    (NY, "30 1 * * *", "2026-11-01T06:10:00Z", ["11-02 01:30 EST"]),
    (NY, "30 * * * *", "2026-11-01T06:10:00Z", ["11-01 01:30 EST", "11-01 02:30 EST"]),
    (NY, "0 2 * * *", "2026-11-01T06:10:00Z", ["11-01 02:00 EST"]),
    # --- Europe/London, spring forward: 01:00-01:59 does not exist on 2026-03-29
    (LONDON, "30 1 * * *", "2026-03-28T12:00", ["03-29 02:00 BST", "03-30 01:30 BST"]),
    (LONDON, "0-40/20 1 * * *", "2026-03-29T00:00", ["03-29 02:00 BST", "03-30 01:00 BST"]),
    (LONDON, "15 6 * * *", "2026-03-28T00:00", ["03-28 06:15 GMT", "03-29 06:15 BST"]),
    (LONDON, "30 * * * *", "2026-03-29T00:00", ["03-29 00:30 GMT", "03-29 02:30 BST"]),
    (LONDON, "0 0 * * *", "2026-03-28T12:00", ["03-29 00:00 GMT", "03-30 00:00 BST"]),
    # --- Europe/London, fall back: 01:00-01:59 happens twice on 2026-10-25
    (LONDON, "30 1 * * *", "2026-10-24T12:00", ["10-25 01:30 BST", "10-26 01:30 GMT"]),
    (
        LONDON,
        "0,30 1 * * *",
        "2026-10-25T00:00",
        ["10-25 01:00 BST", "10-25 01:30 BST", "10-26 01:00 GMT"],
    ),
    (LONDON, "15 6 * * *", "2026-10-24T00:00", ["10-24 06:15 BST", "10-25 06:15 GMT"]),
    (
        LONDON,
        "30 * * * *",
        "2026-10-25T00:00",
        ["10-25 00:30 BST", "10-25 01:30 BST", "10-25 01:30 GMT", "10-25 02:30 GMT"],
    ),
    (LONDON, "30 1 * * *", "2026-10-25T01:10:00Z", ["10-26 01:30 GMT"]),
]


@pytest.mark.parametrize(("tz", "expr", "after", "expected"), TABLE)
def test_it_fires_across_dst_by_the_table(
    tz: str, expr: str, after: str, expected: list[str]
) -> None:
    fires = upcoming(cron(expr, tz), after=at(after, tz), count=len(expected))
    assert [local(f, tz)[5:] for f in fires] == expected


def test_it_fires_a_time_in_the_skipped_hour_once_right_after_the_gap() -> None:
    spec = cron("30 2 * * *")
    fire = next_fire(spec, after=at("2026-03-08T00:00"))
    assert fire is not None
    assert utc(fire) == "2026-03-08T07:00:00Z"  # the transition itself: 03:00 EDT
    assert local(next_fire(spec, after=fire) or 0) == "2026-03-09 02:30 EDT"


def test_it_fires_a_time_in_the_repeated_hour_once_at_its_first_occurrence() -> None:
    spec = cron("30 1 * * *")
    day = upcoming(spec, after=at("2026-10-31T12:00"), count=3)
    assert [utc(f) for f in day] == [
        "2026-11-01T05:30:00Z",  # 01:30 EDT; 01:30 EST (06:30Z) does not fire
        "2026-11-02T06:30:00Z",
        "2026-11-03T06:30:00Z",
    ]


def test_it_keeps_a_sub_hourly_schedule_firing_in_real_time_through_the_repeated_hour() -> None:
    fires = upcoming(cron("*/15 * * * *"), after=at("2026-11-01T00:50"), count=10)
    gaps = {b - a for a, b in pairwise(fires)}
    assert gaps == {15 * 60_000}  # no gap and no double fire in real time
    assert [local(f)[11:] for f in fires[:8]] == [
        "01:00 EDT",
        "01:15 EDT",
        "01:30 EDT",
        "01:45 EDT",
        "01:00 EST",
        "01:15 EST",
        "01:30 EST",
        "01:45 EST",
    ]


def test_it_keeps_a_daily_time_local_across_both_transitions() -> None:
    for tz in (NY, LONDON):
        fires = upcoming(cron("15 6 * * *", tz), after=at("2026-01-01T00:00", tz), count=365)
        assert {local(f, tz)[11:16] for f in fires} == {"06:15"}
        assert len({local(f, tz)[:10] for f in fires}) == 365


def test_it_does_not_fire_the_repeated_slot_again_after_downtime() -> None:
    spec = cron("30 1 * * *")
    first = at("2026-11-01T01:30")  # EDT
    assert due(spec, since=first, now=at("2026-11-01T06:45:00Z")).fire_at is None
    assert due(spec, since=first, now=at("2026-11-02T01:30")).fire_at == at("2026-11-02T01:30")


def test_it_fires_the_skipped_slot_once_when_due_across_the_gap() -> None:
    spec = cron("0-50/10 2 * * *")
    result = due(spec, since=at("2026-03-07T02:50"), now=at("2026-03-08T03:05"))
    assert result.fire_at == at("2026-03-08T03:00")
    assert result.missed == 0  # the six skipped slots are one fire


def test_it_shows_local_and_utc_for_the_next_fires() -> None:
    fires = upcoming(cron("30 1 * * *", LONDON), after=at("2026-10-24T12:00", LONDON), count=2)
    assert [(local(f, LONDON), utc(f)) for f in fires] == [
        ("2026-10-25 01:30 BST", "2026-10-25T00:30:00Z"),
        ("2026-10-26 01:30 GMT", "2026-10-26T01:30:00Z"),
    ]


# Expressions for the round trip: fixed hours inside and around both transitions, real-time
# (hour ``*``) schedules, steps, lists, ranges, day-of-month/day-of-week and month limits.
ROUND_TRIP = (
    "* * * * *",
    "*/7 * * * *",
    "0 * * * *",
    "30 * * * *",
    "59 * * * *",
    "*/15 * * * *",
    "5,35 * * * *",
    "0 */2 * * *",
    "0 1 * * *",
    "30 1 * * *",
    "59 1 * * *",
    "0 2 * * *",
    "30 2 * * *",
    "*/10 2 * * *",
    "0,30 2,3 * * *",
    "15 0-3 * * *",
    "45 1-2 * * *",
    "0 3 * * *",
    "0 0 * * *",
    "15 6 * * *",
    "0 9-17 * * 1-5",
    "30 8 * * sun",
    "0 12 * * 0,6",
    "0 1 8 * *",
    "0 2 1,8,25 * *",
    "0 1 * mar,oct,nov *",
    "*/20 1-3 * 3 *",
    "0 0 1 * *",
    "0 0 29 2 *",
    "10 1 1-7 * sun",
    "0 22 * * 6",
    "1/13 * * * *",
    "0 */3 * * *",
    "0 4 */2 * *",
    "58 23 31 12 *",
    "0 1-2/1 * * *",
)


@settings(max_examples=200, deadline=None)
@given(
    expr=st.sampled_from(ROUND_TRIP),
    where=st.sampled_from([(tz, at(instant)) for tz, instant, _, _ in TRANSITIONS]),
    shift=st.integers(-2 * DAY, DAY),
    count=st.integers(1, 12),
)
def test_it_finds_the_same_fires_walking_forward_and_back(
    expr: str, where: tuple[str, int], shift: int, count: int
) -> None:
    """Forward with ``upcoming``; back with ``due`` (the latest fire at or before an instant,
    as the tick asks it), one fire at a time: the two walks meet fire for fire."""
    tz, transition = where
    spec = cron(expr, tz)
    start = transition + shift
    forward = upcoming(spec, after=start, count=count)
    assert forward == sorted(set(forward)) and forward[0] > start
    back: list[int] = []
    now = forward[-1]
    while (d := due(spec, since=start, now=now)).fire_at is not None:
        assert d.missed == len(forward) - len(back) - 1
        back.append(d.fire_at)
        now = d.fire_at - 1
    assert back[::-1] == forward, f"{expr} in {tz} from {utc(start)}"
