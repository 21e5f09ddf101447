"""``at`` and ``every`` specs, and ``due``: missed fires coalesce into one, counted."""

from __future__ import annotations

import pytest
from schedule_cases import DAY, HOUR, MIN, NY, at, cron

from deskd.errors import InvalidValue
from deskd.schedule.rules import (
    MISSED_CAP,
    AtSpec,
    Due,
    EverySpec,
    describe,
    due,
    next_fire,
    upcoming,
    validate_at,
    validate_every,
)

NOW = at("2026-12-01T09:00")
SEC = 1000


# --- at ----------------------------------------------------------------------------------


def test_it_fires_an_at_hook_once_then_never() -> None:
    spec = validate_at(NOW + HOUR, now=NOW)
    assert next_fire(spec, after=NOW) == NOW + HOUR
    assert next_fire(spec, after=NOW + HOUR) is None
    assert upcoming(spec, after=NOW, count=5) == [NOW + HOUR]
    assert upcoming(spec, after=NOW + HOUR, count=5) == []


@pytest.mark.parametrize("when", [NOW - MIN, NOW])
def test_it_refuses_an_at_time_that_is_not_in_the_future(when: int) -> None:
    with pytest.raises(InvalidValue, match="must be later than now"):
        validate_at(when, now=NOW)


def test_it_makes_an_at_hook_due_once_its_time_has_come() -> None:
    spec = AtSpec(at_ms=NOW + HOUR)
    assert due(spec, since=NOW, now=NOW + HOUR - 1) == Due(fire_at=None, missed=0)
    assert due(spec, since=NOW, now=NOW + DAY) == Due(fire_at=NOW + HOUR, missed=0)
    assert due(spec, since=NOW + HOUR, now=NOW + DAY) == Due(fire_at=None)  # already fired


# --- every -------------------------------------------------------------------------------


@pytest.mark.parametrize("seconds", [0, 1, 30, 59, -60])
def test_it_refuses_an_interval_under_a_minute_instead_of_clamping_it(seconds: int) -> None:
    with pytest.raises(InvalidValue, match="at least 60 seconds"):
        validate_every(seconds, anchor=NOW)


def test_it_accepts_an_interval_of_a_minute_or_more() -> None:
    assert validate_every(60, anchor=NOW) == EverySpec(every_s=60, anchor_ms=NOW)
    assert next_fire(validate_every(3600, anchor=NOW), after=NOW) == NOW + HOUR


def test_it_anchors_every_to_its_schedule_not_to_when_the_tick_ran() -> None:
    spec = validate_every(300, anchor=NOW)
    late = due(spec, since=NOW, now=NOW + 5 * MIN + 17 * SEC)  # the tick ran 17 s late
    assert late == Due(fire_at=NOW + 5 * MIN, missed=0)
    assert next_fire(spec, after=NOW + 5 * MIN + 17 * SEC) == NOW + 10 * MIN  # no drift
    again = due(spec, since=NOW + 5 * MIN, now=NOW + 10 * MIN + 2 * SEC)
    assert again == Due(fire_at=NOW + 10 * MIN, missed=0)
    assert upcoming(spec, after=NOW, count=3) == [NOW + 5 * MIN, NOW + 10 * MIN, NOW + 15 * MIN]


def test_it_does_not_fire_every_before_its_first_interval() -> None:
    spec = validate_every(600, anchor=NOW)
    assert due(spec, since=NOW, now=NOW + 10 * MIN - 1) == Due(fire_at=None)
    assert next_fire(spec, after=NOW - DAY) == NOW + 10 * MIN


def test_it_counts_a_year_of_missed_minutes_without_walking_them() -> None:
    spec = validate_every(60, anchor=NOW)
    result = due(spec, since=NOW, now=NOW + 365 * DAY + 30 * SEC)
    assert result == Due(fire_at=NOW + 365 * DAY, missed=365 * 24 * 60 - 1)


def test_it_counts_missed_every_fires_from_the_last_scheduled_one() -> None:
    spec = validate_every(3600, anchor=NOW)
    result = due(spec, since=NOW + 2 * HOUR, now=NOW + 7 * HOUR + MIN)
    assert result == Due(fire_at=NOW + 7 * HOUR, missed=4)  # 3h, 4h, 5h, 6h coalesced


# --- cron --------------------------------------------------------------------------------


def test_it_coalesces_missed_cron_fires_into_the_latest_one() -> None:
    spec = cron("*/5 * * * *")
    result = due(spec, since=NOW, now=NOW + 3 * HOUR + 2 * MIN)
    assert result == Due(fire_at=NOW + 3 * HOUR, missed=35)


def test_it_is_not_due_between_cron_fires() -> None:
    spec = cron("*/5 * * * *")
    assert due(spec, since=NOW, now=NOW + 4 * MIN) == Due(fire_at=None)
    assert due(spec, since=NOW, now=NOW + 5 * MIN) == Due(fire_at=NOW + 5 * MIN)


def test_it_coalesces_a_monthly_schedule_missed_for_over_a_year() -> None:
    spec = cron("0 9 1 * *")
    result = due(spec, since=at("2026-01-01T09:00"), now=at("2027-03-15T12:00"))
    assert result == Due(fire_at=at("2027-03-01T09:00"), missed=13)


def test_it_caps_the_count_of_missed_cron_fires_and_still_finds_the_latest() -> None:
    spec = cron("* * * * *")
    now = NOW + 30 * DAY + 30 * SEC
    result = due(spec, since=NOW, now=now)
    assert result == Due(fire_at=NOW + 30 * DAY, missed=MISSED_CAP)


def test_it_finds_the_latest_fire_of_a_sparse_schedule_past_the_cap() -> None:
    spec = cron("* 3 * * *")  # 60 fires a day, all between 03:00 and 03:59
    result = due(spec, since=at("2026-01-01T00:00"), now=at("2026-12-01T09:00"))
    assert result == Due(fire_at=at("2026-12-01T03:59"), missed=MISSED_CAP)


# --- describe ----------------------------------------------------------------------------


def test_it_describes_each_kind_in_a_short_line() -> None:
    assert describe(AtSpec(at_ms=NOW), tz=NY) == "once at 2026-12-01 09:00 EST"
    assert describe(AtSpec(at_ms=NOW)) == "once at 2026-12-01 14:00 UTC"
    assert describe(EverySpec(every_s=300, anchor_ms=NOW)) == "every 5m"
    assert describe(EverySpec(every_s=5400, anchor_ms=NOW)) == "every 1h 30m"
    assert describe(EverySpec(every_s=86_400 + 90, anchor_ms=NOW)) == "every 1d 1m 30s"
    assert describe(cron("0 9 * * MON-FRI")) == "cron 0 9 * * MON-FRI (America/New_York)"
