"""Hypothesis: cron fires agree with a brute-force scan, minute by minute, near DST transitions.

The scan is written independently of deskd.schedule.rules: expressions are generated together
with the set of values each field means, and every real minute of a three-day window is
checked against the wall clock with the DST rules in the module docstring.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from schedule_cases import DAY, LONDON, MIN, NY

from deskd.errors import InvalidValue
from deskd.schedule.rules import CronSpec, next_fire, upcoming, validate_cron

ZONES = (NY, LONDON, "Australia/Lord_Howe")
WINDOW_MIN = 3 * 24 * 60


def _transitions(tz: str) -> list[int]:
    """Unix ms of every offset change of ``tz`` in 2026 (found by scanning, then bisecting)."""
    zone = ZoneInfo(tz)

    def offset(ms: int) -> timedelta | None:
        return datetime.fromtimestamp(ms / 1000, zone).utcoffset()

    found = []
    start = int(datetime(2026, 1, 1, tzinfo=UTC).timestamp() * 1000)
    for low in range(start, start + 365 * DAY, 3600_000):
        high = low + 3600_000
        if offset(low) != offset(high):
            while high - low > MIN:
                middle = (low + high) // 2 // MIN * MIN
                if offset(middle) == offset(low):
                    low = middle
                else:
                    high = middle
            found.append(high)
    return found


TRANSITIONS = [(tz, ms) for tz in ZONES for ms in _transitions(tz)]
assert len(TRANSITIONS) == 6


@dataclass(frozen=True)
class Field:
    text: str
    values: frozenset[int]


# (lowest, highest as written, highest reached by * and N/S)
BOUNDS = ((0, 59, 59), (0, 23, 23), (1, 31, 31), (1, 12, 12), (0, 7, 6))
NAMES = (
    (),
    (),
    (),
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
    ("sun", "mon", "tue", "wed", "thu", "fri", "sat"),
)
# Values worth hitting often: the transition hours and days, and the fields' edges.
LIKELY = (
    (0, 1, 15, 30, 45, 59),
    (0, 1, 2, 3),
    (1, 4, 5, 25, 28, 29, 30, 31),
    (3, 4, 10),
    (0, 6, 7),
)


@st.composite
def items(draw: st.DrawFn, index: int) -> Field:
    lowest, highest, star_high = BOUNDS[index]
    number = st.one_of(st.sampled_from(LIKELY[index]), st.integers(lowest, highest))
    kind = draw(st.sampled_from(("value", "range", "star_step", "range_step", "start_step")))
    if kind == "value":
        value = draw(number)
        if NAMES[index] and draw(st.booleans()) and value - lowest < len(NAMES[index]):
            text = NAMES[index][value - lowest].upper()
        else:
            text = str(value)
        return Field(text, frozenset({value}))
    step = draw(st.integers(1, star_high))
    if kind == "star_step":
        return Field(f"*/{step}", frozenset(range(lowest, star_high + 1, step)))
    low = draw(number)
    if kind == "start_step":
        return Field(f"{low}/{step}", frozenset(range(low, max(star_high, low) + 1, step)))
    high = draw(st.integers(low, highest))
    if kind == "range":
        return Field(f"{low}-{high}", frozenset(range(low, high + 1)))
    return Field(f"{low}-{high}/{step}", frozenset(range(low, high + 1, step)))


@st.composite
def fields(draw: st.DrawFn, index: int, star_weight: int) -> Field:
    lowest, _, star_high = BOUNDS[index]
    if draw(st.integers(1, 10)) <= star_weight:
        return Field("*", frozenset(range(lowest, star_high + 1)))
    parts = draw(st.lists(items(index), min_size=1, max_size=3))
    values = frozenset().union(*(p.values for p in parts))
    if index == 4:
        values = frozenset(v % 7 for v in values)
    return Field(",".join(p.text for p in parts), values)


expressions = st.tuples(
    fields(0, star_weight=2),
    fields(1, star_weight=3),
    fields(2, star_weight=7),
    fields(3, star_weight=7),
    fields(4, star_weight=7),
)


def _matches(f: tuple[Field, ...], wall: datetime) -> bool:
    minute, hour, dom, month, dow = f
    if wall.minute not in minute.values or wall.hour not in hour.values:
        return False
    if wall.month not in month.values:
        return False
    day_ok = wall.day in dom.values
    weekday_ok = wall.isoweekday() % 7 in dow.values
    if dom.text != "*" and dow.text != "*":
        return day_ok or weekday_ok
    return day_ok and weekday_ok


@dataclass(frozen=True)
class Minutes:
    """Every real minute from ``first`` on, as the zone's wall clock reads it: the naive wall
    time, its fold, the fields cron matches (minute, hour, day, month, weekday 0=Sunday), and
    whether the wall clock jumped forward into it (a gap). Built once per transition, so each
    example's scan indexes it instead of converting 4,320 instants again."""

    first: int
    walls: list[datetime]
    folds: list[int]
    keys: list[tuple[int, int, int, int, int]]
    jumped: list[bool]


@cache
def _minutes_near(tz: str, transition: int) -> Minutes:
    zone = ZoneInfo(tz)
    # Every scan starts within (transition - 2 days, transition + 1 day] and lasts the window.
    first = transition // MIN - 2 * DAY // MIN - 1
    walls, folds, keys, jumped = [], [], [], []
    for minute in range(first, transition // MIN + DAY // MIN + WINDOW_MIN + 2):
        local = datetime.fromtimestamp(minute * 60, zone)
        wall = local.replace(tzinfo=None)
        jumped.append(bool(walls) and wall - walls[-1] > timedelta(minutes=1))
        walls.append(wall)
        folds.append(local.fold)
        keys.append((wall.minute, wall.hour, wall.day, wall.month, wall.isoweekday() % 7))
    return Minutes(first, walls, folds, keys, jumped)


def _matches_key(f: tuple[Field, ...], key: tuple[int, int, int, int, int]) -> bool:
    minute, hour, dom, month, dow = f
    if key[0] not in minute.values or key[1] not in hour.values or key[3] not in month.values:
        return False
    day_ok = key[2] in dom.values
    weekday_ok = key[4] in dow.values
    if dom.text != "*" and dow.text != "*":
        return day_ok or weekday_ok
    return day_ok and weekday_ok


def _brute_force(f: tuple[Field, ...], where: tuple[str, int], after: int) -> list[int]:
    """Every fire in the WINDOW_MIN real minutes after ``after`` (near the transition
    ``where``), by the module's DST rules."""
    table = _minutes_near(*where)
    # Fixed-time unless the minute or hour field is written starting with * (Debian's rule).
    fixed_time = not (f[0].text.startswith("*") or f[1].text.startswith("*"))
    first = after // MIN + 1
    fires = []
    for minute in range(first, first + WINDOW_MIN):
        i = minute - table.first
        fire = _matches_key(f, table.keys[i])
        if fixed_time:
            fire = fire and table.folds[i] == 0  # the second pass of a repeated hour never fires
            if not fire and table.jumped[i]:  # a slot skipped by the gap fires right after it
                skipped = table.walls[i - 1] + timedelta(minutes=1)
                while not fire and skipped < table.walls[i]:
                    fire = _matches(f, skipped)
                    skipped += timedelta(minutes=1)
        if fire:
            fires.append(minute * MIN)
    return fires


@settings(max_examples=150, deadline=None)
@given(
    expression=expressions,
    where=st.sampled_from(TRANSITIONS),
    shift=st.integers(-2 * DAY, DAY),
)
def test_it_agrees_with_a_minute_by_minute_scan_near_transitions(
    expression: tuple[Field, ...], where: tuple[str, int], shift: int
) -> None:
    tz, transition = where
    expr = " ".join(f.text for f in expression)
    try:
        spec = validate_cron(expr, tz=tz)
    except InvalidValue:
        assume(False)
        raise
    after = transition + shift
    expected = _brute_force(expression, where, after)
    got = upcoming(spec, after=after, count=len(expected) + 1)
    assert got[: len(expected)] == expected, expr
    assert got[-1] > after + WINDOW_MIN * MIN  # nothing else fires inside the window
    first = next_fire(spec, after=after)
    assert first is not None and first > after


@settings(max_examples=100, deadline=None)
@given(
    expression=expressions,
    tz=st.sampled_from((*ZONES, "UTC", "Asia/Kolkata")),
    after=st.integers(
        int(datetime(2000, 1, 1, tzinfo=UTC).timestamp() * 1000),
        int(datetime(2090, 1, 1, tzinfo=UTC).timestamp() * 1000),
    ),
)
def test_it_always_finds_a_later_fire_for_a_valid_expression(
    expression: tuple[Field, ...], tz: str, after: int
) -> None:
    expr = " ".join(f.text for f in expression)
    try:
        spec = validate_cron(expr, tz=tz)
    except InvalidValue:
        assume(False)
        raise
    fires = upcoming(spec, after=after, count=3)
    assert after < fires[0] < fires[1] < fires[2]
    assert next_fire(CronSpec(expr=expr, tz=tz), after=fires[0]) == fires[1]
    local = datetime.fromtimestamp(fires[0] / 1000, ZoneInfo(tz)).replace(tzinfo=None)
    # A fire lands on its wall-clock slot unless that slot was skipped by a gap.
    assert _matches(expression, local) or len(expression[1].values) < 24
