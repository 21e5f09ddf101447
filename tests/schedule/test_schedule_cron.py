"""Cron expressions: what is accepted, what they mean, and that they keep firing (lesson 23)."""

from __future__ import annotations

from itertools import pairwise

import pytest
from schedule_cases import LONDON, NY, at, cron, local

from deskd.errors import InvalidValue
from deskd.schedule.rules import CronSpec, next_fire, upcoming, validate_cron

NOW = at("2026-12-01T09:00")  # a Tuesday


def fires(expr: str, count: int, *, after: int = NOW, tz: str = NY) -> list[str]:
    return [local(f, tz) for f in upcoming(cron(expr, tz), after=after, count=count)]


def refusal(expr: str, tz: str = NY) -> str:
    with pytest.raises(InvalidValue) as caught:
        validate_cron(expr, tz=tz)
    return caught.value.message


# --- what is accepted --------------------------------------------------------------------


def test_it_keeps_the_expression_and_timezone_with_whitespace_collapsed() -> None:
    assert validate_cron("  0  9 * *   MON-FRI ", tz=LONDON) == CronSpec(
        expr="0 9 * * MON-FRI", tz=LONDON
    )


@pytest.mark.parametrize("expr", ["0 0 9 * * *", "0 0 9 * * * 2027"])
def test_it_refuses_seconds_and_year_fields(expr: str) -> None:
    message = refusal(expr)
    assert "exactly 5" in message
    assert "seconds and year fields are not supported" in message
    assert "minute hour day-of-month month day-of-week" in message


@pytest.mark.parametrize("expr", ["", "0 9 * *", "@reboot"])
def test_it_refuses_other_field_counts_and_unknown_shorthands(expr: str) -> None:
    assert "5 fields" in refusal(expr)


@pytest.mark.parametrize(
    ("expr", "says"),
    [
        ("60 * * * *", "minute field: 60 is outside 0-59"),
        ("0 24 * * *", "hour field: 24 is outside 0-23"),
        ("0 0 0 * *", "day-of-month field: 0 is outside 1-31"),
        ("0 0 * 13 *", "month field: 13 is outside 1-12"),
        ("0 0 * * 8", "day-of-week field: 8 is outside 0-7"),
        ("*/0 * * * *", "step of 0"),
        ("30-10 * * * *", "runs backwards"),
        ("0 0 * * FRI-MON", "runs backwards"),
        ("0 0 * JANUARY *", "neither a number nor a name (JAN-DEC)"),
        ("0 0 * * FOO", "neither a number nor a name (SUN-SAT)"),
        ("MON 0 * * *", "minute field: 'mon' is not a number"),
        ("0 0 L * *", "not a number"),
        ("0 0 15W * *", "not understood"),
        ("0 0 * * 1#2", "not understood"),
        ("0 0 ? * *", "not understood"),
        ("H * * * *", "not a number"),
        ("*-5 * * * *", "not understood"),
        ("1,,2 * * * *", "not understood"),
    ],
)
def test_it_refuses_bad_fields_naming_the_field_and_the_valid_forms(expr: str, says: str) -> None:
    message = refusal(expr)
    assert says in message
    assert "names JAN-DEC and SUN-SAT" in message


@pytest.mark.parametrize(
    "expr", ["0 0 30 2 *", "0 0 31 4 *", "0 0 31 2,4,6,9,11 *", "0 0 30,31 FEB *"]
)
def test_it_refuses_an_expression_that_can_never_fire(expr: str) -> None:
    assert "can never fire" in refusal(expr)


@pytest.mark.parametrize(
    ("expr", "first"),
    [
        ("0 0 29 2 *", "2028-02-29 00:00 EST"),
        ("0 0 31 2,3 *", "2027-03-31 00:00 EDT"),
        ("0 0 30 2 MON", "2027-02-01 00:00 EST"),  # OR: the Mondays of February
        ("0 0 31 */2 *", "2027-01-31 00:00 EST"),
    ],
)
def test_it_accepts_rare_but_possible_days(expr: str, first: str) -> None:
    assert fires(expr, 1) == [first]


@pytest.mark.parametrize("tz", ["Mars/Olympus", "", "America", "../etc/passwd", "utc"])
def test_it_refuses_a_bad_timezone(tz: str) -> None:
    assert "IANA timezone" in refusal("0 9 * * *", tz)


# --- what they mean ----------------------------------------------------------------------


def test_it_ors_day_of_month_and_day_of_week_when_both_are_restricted() -> None:
    assert fires("0 0 13 * FRI", 4, after=at("2026-02-01T00:00")) == [
        "2026-02-06 00:00 EST",
        "2026-02-13 00:00 EST",  # the 13th (also a Friday)
        "2026-02-20 00:00 EST",
        "2026-02-27 00:00 EST",
    ]
    assert fires("0 0 1 * MON", 3, after=at("2026-06-25T00:00")) == [
        "2026-06-29 00:00 EDT",
        "2026-07-01 00:00 EDT",  # a Wednesday: the 1st
        "2026-07-06 00:00 EDT",
    ]


def test_it_counts_a_stepped_day_field_as_restricted() -> None:
    assert fires("0 0 */10 * MON", 4, after=at("2026-06-01T12:00")) == [
        "2026-06-08 00:00 EDT",  # Monday
        "2026-06-11 00:00 EDT",  # the 11th
        "2026-06-15 00:00 EDT",
        "2026-06-21 00:00 EDT",
    ]


def test_it_ands_the_day_fields_when_one_is_a_star() -> None:
    assert fires("0 0 13 * *", 2) == ["2026-12-13 00:00 EST", "2027-01-13 00:00 EST"]
    assert fires("0 0 * * FRI", 2) == ["2026-12-04 00:00 EST", "2026-12-11 00:00 EST"]
    assert fires("0 0 * 2 FRI", 1) == ["2027-02-05 00:00 EST"]


def test_it_accepts_month_and_weekday_names_in_any_case() -> None:
    assert fires("0 9 * jan-mar Mon-Fri", 2) == ["2027-01-01 09:00 EST", "2027-01-04 09:00 EST"]
    assert fires("0 9 1 JAN,jul *", 2) == ["2027-01-01 09:00 EST", "2027-07-01 09:00 EDT"]


def test_it_reads_sunday_as_0_7_and_sun() -> None:
    sundays = fires("0 0 * * 0", 3)
    assert fires("0 0 * * 7", 3) == sundays
    assert fires("0 0 * * SUN", 3) == sundays
    assert fires("0 0 * * 5-7", 3) == [
        "2026-12-04 00:00 EST",
        "2026-12-05 00:00 EST",
        "2026-12-06 00:00 EST",
    ]


def test_it_reads_a_step_starting_at_the_field_maximum_as_that_one_value() -> None:
    # croniter 7 agrees; earlier croniter read "59/5" as the whole cycle.
    assert [f[11:16] for f in fires("59/5 * * * *", 3)] == ["09:59", "10:59", "11:59"]
    assert [f[11:16] for f in fires("0 23/2 * * *", 2)] == ["23:00", "23:00"]
    assert [f[11:16] for f in fires("10/25 * * * *", 3)] == ["09:10", "09:35", "10:10"]


def test_it_reads_an_equal_range_as_one_value() -> None:
    # croniter alone widens "5-5" and "JAN-JAN" to the whole field.
    assert [f[11:16] for f in fires("5-5 * * * *", 2)] == ["09:05", "10:05"]
    assert fires("0 0 1 jan-jan *", 2) == ["2027-01-01 00:00 EST", "2028-01-01 00:00 EST"]


@pytest.mark.parametrize(
    ("alias", "expr"),
    [
        ("@yearly", "0 0 1 1 *"),
        ("@annually", "0 0 1 1 *"),
        ("@monthly", "0 0 1 * *"),
        ("@weekly", "0 0 * * 0"),
        ("@daily", "0 0 * * *"),
        ("@midnight", "0 0 * * *"),
        ("@hourly", "0 * * * *"),
    ],
)
def test_it_accepts_the_cron_shorthands(alias: str, expr: str) -> None:
    assert fires(alias, 3) == fires(expr, 3)


# --- no horizon --------------------------------------------------------------------------


def test_it_keeps_a_monthly_schedule_firing_for_decades() -> None:
    got = fires("0 9 1 * *", 360, after=at("2026-01-01T00:00"))
    assert got[0] == "2026-01-01 09:00 EST"
    assert got[-1] == "2055-12-01 09:00 EST"
    assert {f[8:16] for f in got} == {"01 09:00"}


def test_it_keeps_a_yearly_schedule_firing_for_a_century() -> None:
    got = fires("0 0 1 1 *", 100)
    assert got[0] == "2027-01-01 00:00 EST"
    assert got[-1] == "2126-01-01 00:00 EST"


def test_it_fires_a_leap_day_schedule_every_leap_year_across_2100() -> None:
    got = [f[:4] for f in fires("0 0 29 2 *", 25, after=at("2026-01-01T00:00"))]
    assert got[:2] == ["2028", "2032"]
    assert "2096" in got and "2100" not in got and "2104" in got
    assert len(got) == 25


# --- a forward round trip ----------------------------------------------------------------

ROUND_TRIP = [
    "* * * * *",
    "*/5 * * * *",
    "*/7 * * * *",
    "0 * * * *",
    "30 * * * *",
    "15,45 * * * *",
    "0 */2 * * *",
    "0 */3 * * *",
    "30 1 * * *",
    "30 2 * * *",
    "0 0 * * *",
    "15 6 * * *",
    "59 23 * * *",
    "0 9 * * MON-FRI",
    "0 9-17 * * 1-5",
    "*/10 1-3 * * *",
    "* 1 * * *",
    "* 2 * * *",
    "0 12 * * SAT,SUN",
    "0 0 1 * *",
    "0 9 1 * *",
    "0 0 15 * *",
    "0 0 31 * *",
    "0 0 28-31 * *",
    "0 0 1 1 *",
    "0 0 29 2 *",
    "0 0 13 * FRI",
    "0 0 1 */3 *",
    "0 6 * 3,11 SUN",
    "0,30 2,3 * * *",
    "45 1 * * 0",
    "5 4 * * sun",
    "0 22 * * 1-5",
    "23 0-20/2 * * *",
    "0 0,12 1 */2 *",
    "@hourly",
    "@weekly",
    "59/5 * * * *",
    "10/25 * * * *",
    "0 0 */10 * MON",
]


# Three hours before each 2026 transition (Lord Howe shifts by 30 minutes), and a quiet day.
STARTS = [
    (NY, "2026-03-08T04:00:00Z"),
    (NY, "2026-11-01T03:00:00Z"),
    (LONDON, "2026-03-28T22:00:00Z"),
    (LONDON, "2026-10-24T22:00:00Z"),
    ("Australia/Lord_Howe", "2026-04-04T12:00:00Z"),
    ("Australia/Lord_Howe", "2026-10-03T12:30:00Z"),
    ("UTC", "2026-06-01T00:00:00Z"),
]


@pytest.mark.parametrize(("tz", "start_text"), STARTS)
@pytest.mark.parametrize("expr", ROUND_TRIP)
def test_it_walks_forward_through_strictly_increasing_fires(
    expr: str, tz: str, start_text: str
) -> None:
    spec = cron(expr, tz)
    start = at(start_text)
    got = upcoming(spec, after=start, count=40)
    assert got[0] > start
    assert all(a < b for a, b in pairwise(got))
    for fire, following in pairwise(got):
        assert next_fire(spec, after=fire) == following
        assert next_fire(spec, after=fire - 1) == fire
