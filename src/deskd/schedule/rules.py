"""When a wake hook fires: ``at``, ``every`` and ``cron`` schedules (docs/architecture.md,
"Wake hooks").

Instants are Unix ms (UTC). Nothing here reads the clock: every function takes ``after``,
``since`` or ``now``.

A cron expression is parsed here into one set of values per field and handed to croniter as
plain numeric lists, so croniter's own parsing quirks cannot leak in. croniter then finds the
next matching *wall-clock* minute on naive datetimes, and this module maps wall-clock minutes
to instants in the hook's timezone with deskd's DST rules (lesson 24), which
are Debian cron's (and cronsim's): how the minute and hour fields are *written* decides.

A **fixed-time** schedule (neither the minute nor the hour field starts with ``*``) fires each
matching wall-clock slot once; a **wildcard** one runs in real time (docs/architecture.md
"Wake hooks" gives the rules, examples and why).

Semantics pinned by tests/schedule rather than inherited from croniter:

- Exactly 5 fields; ``N/S`` means ``N-max/S``, so a step starting at a field's maximum is that
  one value (``59/5`` is minute 59, ``23/2`` is hour 23). ``A-A`` is the single value ``A``.
  Day-of-week runs 0-7 (0 and 7 are Sunday); names JAN-DEC and SUN-SAT are accepted.
- Day-of-month OR day-of-week when both are restricted (neither written as ``*``; ``*/2``
  counts as restricted), AND otherwise.
- No horizon: a valid schedule fires at least every 8 years (a leap day across 2100), so
  monthly, yearly and leap-day schedules keep firing. An expression that can never fire
  (``0 0 30 2 *``) is refused when validated.

What croniter 7.0 does by itself, for the record (aware datetimes, America/New_York 2026):
``30 1 * * *`` fires twice on 2026-11-01 (01:30 EDT and 01:30 EST) -- hence the dedup by
wall-clock slot above for fixed-time schedules; ``30 2 * * *`` fires once at 03:00 EDT on
2026-03-08 and ``30 * * * *`` skips 02:30, which agree with ours; ``5-5`` and ``JAN-JAN``
are read as the whole field; ``59/5`` is minute 59 only (croniter 7; earlier versions fired
it like ``*/5``); ``day_or=True`` is its default, with ``*/2`` counting as restricted; it also
accepts 6- and 7-field forms and the L, W, #, ? and H extensions, all of which deskd refuses.

It runs past 400 lines because the cron parser and the DST walk are one concept: the walk
reads what the parser says of how the fields were written.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, tzinfo
from functools import lru_cache
from typing import NamedTuple, NoReturn
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from deskd.core.timeparse import iso_utc, local_text
from deskd.errors import InvalidValue

MIN_EVERY_S = 60
# Counting missed cron fires stops here; ``Due.missed`` is then "at least this many".
MISSED_CAP = 10_000

TZ_HINT = "an IANA timezone name like America/New_York, Europe/London or UTC"


class AtSpec(NamedTuple):
    """Fires once, at ``at_ms``."""

    at_ms: int


class EverySpec(NamedTuple):
    """Fires at ``anchor_ms + n * every_s`` for n = 1, 2, ... (anchored, so it never drifts)."""

    every_s: int
    anchor_ms: int


class CronSpec(NamedTuple):
    """Fires when the local wall clock in ``tz`` matches ``expr`` (DST rules above)."""

    expr: str
    tz: str


Spec = AtSpec | EverySpec | CronSpec


class Due(NamedTuple):
    """The fire to run now (the latest scheduled one), and how many earlier ones it absorbs."""

    fire_at: int | None
    missed: int = 0


# --- validation -------------------------------------------------------------------------


def validate_timezone(tz: str) -> str:
    """``tz`` itself if it names an IANA timezone; refuses anything else."""
    _zone(tz)
    return tz


def validate_at(at_ms: int, *, now: int) -> AtSpec:
    """An ``at`` spec for a time after ``now``; a time in the past would never fire."""
    if at_ms <= now:
        raise InvalidValue(
            "--at time", iso_utc(at_ms), f"it must be later than now ({iso_utc(now)})"
        )
    return AtSpec(at_ms=at_ms)


def validate_every(every_s: int, *, anchor: int) -> EverySpec:
    """An ``every`` spec anchored at ``anchor`` (the instant the hook is added)."""
    if isinstance(every_s, bool) or not isinstance(every_s, int) or every_s < MIN_EVERY_S:
        raise InvalidValue(
            "--every interval", every_s, f"at least {MIN_EVERY_S} seconds, like 60s, 5m or 1h"
        )
    return EverySpec(every_s=every_s, anchor_ms=anchor)


def validate_cron(expr: str, *, tz: str) -> CronSpec:
    """A cron spec for ``expr`` in ``tz``; refuses bad syntax and expressions that never fire."""
    text = " ".join(str(expr).split())
    parse(text)
    return CronSpec(expr=text, tz=validate_timezone(tz))


# --- evaluation ---------------------------------------------------------------------------


def next_fire(spec: Spec, *, after: int) -> int | None:
    """The first fire strictly after ``after``; None once an ``at`` hook has fired."""
    if isinstance(spec, AtSpec):
        return spec.at_ms if spec.at_ms > after else None
    if isinstance(spec, EverySpec):
        return _every_fire(spec, _every_index_after(spec, after))
    return _CronClock(spec).next(after)


def upcoming(spec: Spec, *, after: int, count: int) -> list[int]:
    """The next ``count`` fires strictly after ``after`` (fewer for a spent ``at`` hook)."""
    if isinstance(spec, AtSpec):
        return [spec.at_ms] if spec.at_ms > after and count > 0 else []
    if isinstance(spec, EverySpec):
        first = _every_index_after(spec, after)
        return [_every_fire(spec, first + i) for i in range(count)]
    clock = _CronClock(spec)
    fires: list[int] = []
    for _ in range(count):
        fires.append(clock.next(fires[-1] if fires else after))
    return fires


def due(spec: Spec, *, since: int, now: int) -> Due:
    """Whether a hook fires at ``now``, coalescing every fire in (``since``, ``now``] into one.

    ``since`` is the hook's last scheduled fire, or the instant it was added if it never
    fired. The fire returned is the latest one due, so an ``every`` hook stays anchored to
    its schedule rather than to ``now``; ``missed`` counts the earlier fires it absorbed
    (exact for ``every``, capped at MISSED_CAP for cron).
    """
    if isinstance(spec, AtSpec):
        return Due(fire_at=spec.at_ms) if since < spec.at_ms <= now else Due(fire_at=None)
    if isinstance(spec, EverySpec):
        first = _every_index_after(spec, since)
        last = (now - spec.anchor_ms) // (spec.every_s * 1000)
        if last < first:
            return Due(fire_at=None)
        return Due(fire_at=_every_fire(spec, last), missed=last - first)
    clock = _CronClock(spec)
    fire = clock.next(since)
    if fire > now:
        return Due(fire_at=None)
    for missed in range(MISSED_CAP):
        following = clock.next(fire)
        if following > now:
            return Due(fire_at=fire, missed=missed)
        fire = following
    return Due(fire_at=clock.latest(floor=fire, now=now), missed=MISSED_CAP)


def describe(spec: Spec, *, tz: str = "UTC") -> str:
    """A short human line: ``once at 2026-12-01 09:30 EST``, ``every 5m``, ``cron 0 9 * * *
    (America/New_York)``; ``tz`` is only for showing an ``at`` time."""
    if isinstance(spec, AtSpec):
        return f"once at {local_text(spec.at_ms, tz)}"
    if isinstance(spec, EverySpec):
        return f"every {span_text(spec.every_s)}"
    return f"cron {spec.expr} ({spec.tz})"


def _every_index_after(spec: EverySpec, after: int) -> int:
    return max(1, (after - spec.anchor_ms) // (spec.every_s * 1000) + 1)


def _every_fire(spec: EverySpec, index: int) -> int:
    return spec.anchor_ms + index * spec.every_s * 1000


def span_text(seconds: int) -> str:
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        amount, seconds = divmod(seconds, size)
        if amount:
            parts.append(f"{amount}{unit}")
    return " ".join(parts) or "0s"


# --- cron: wall clock to instants ---------------------------------------------------------

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_NAIVE = datetime(1970, 1, 1)
_MS = timedelta(milliseconds=1)
_DAY_MS = 86_400_000


class _CronClock:
    """The fires of one cron spec; parses once, so a loop of ``next`` calls stays cheap."""

    def __init__(self, spec: CronSpec) -> None:
        fields = parse(spec.expr)
        self._zone = _zone(spec.tz)
        self._fixed_time = not fields.wildcard
        # Imported here: only commands that evaluate a cron schedule should pay for croniter.
        from croniter import croniter

        self._cron = croniter(fields.croniter_expr(), _EPOCH_NAIVE)

    def next(self, after: int) -> int:
        """The first fire strictly after ``after``."""
        return self._next_fixed_time(after) if self._fixed_time else self._next_real_time(after)

    def latest(self, *, floor: int, now: int) -> int:
        """The last fire in [``floor``, ``now``], ``floor`` being a fire: widening windows back
        from ``now`` instead of walking every fire since ``floor``."""
        window = 3_600_000
        while True:
            start = max(floor, now - window)
            fire = self.next(start)
            if fire <= now:
                while (following := self.next(fire)) <= now:
                    fire = following
                return fire
            if start == floor:
                return floor
            window *= 2

    def _next_fixed_time(self, after: int) -> int:
        # Each wall-clock slot maps to one instant (first occurrence; a skipped slot to the end
        # of its gap), and that map never goes backwards, so the first slot past ``after``'s
        # wall clock whose instant is past ``after`` is the answer. Slots of a repeated hour
        # already spent in its first pass map before ``after`` and are passed over.
        wall = self._wall(after)
        while True:
            wall = self._next_wall(wall)
            fire = self._first_instant(wall)
            if fire > after:
                return fire

    def _next_real_time(self, after: int) -> int:
        # Walk offset segments: within one, wall clock = instant + offset. When the next
        # matching wall minute lies past a transition, restart from the transition with the
        # new offset: a repeated hour is then walked again, a skipped one never.
        t, offset = after, self._offset(after)
        while True:
            fire = _naive_ms(self._next_wall(_naive(t + offset))) - offset
            change = self._transition(t, fire, offset)
            if change is None:
                return fire
            t, offset = change - 1, self._offset(change)

    def _next_wall(self, wall: datetime) -> datetime:
        found: datetime = self._cron.get_next(datetime, start_time=wall)
        return found

    def _first_instant(self, wall: datetime) -> int:
        fire = _ms(wall.replace(tzinfo=self._zone))  # fold=0: the first occurrence
        if self._wall(fire) == wall:
            return fire
        # A skipped slot: fold=1 reads it with the offset after the gap, which lands before
        # the transition; fold=0 lands after it. The transition is the first instant past it.
        before = _ms(wall.replace(tzinfo=self._zone, fold=1))
        change = self._transition(before, fire, self._offset(before))
        return fire if change is None else change

    def _transition(self, start: int, end: int, offset: int) -> int | None:
        """The first instant in (start, end] whose offset differs from ``offset``.

        Steps a day at a time, then bisects: it assumes a zone changes offset at most once
        a day, which holds for the whole tz database since 1970.
        """
        low = start
        while low < end:
            high = min(low + _DAY_MS, end)
            if self._offset(high) != offset:
                while high - low > 1:
                    middle = (low + high) // 2
                    if self._offset(middle) != offset:
                        high = middle
                    else:
                        low = middle
                return high
            low = high
        return None

    def _offset(self, ms: int) -> int:
        delta = _aware(ms, self._zone).utcoffset() or timedelta(0)
        return delta // _MS

    def _wall(self, ms: int) -> datetime:
        return _aware(ms, self._zone).replace(tzinfo=None)


def _aware(ms: int, zone: tzinfo) -> datetime:
    return (_EPOCH + ms * _MS).astimezone(zone)


def _ms(moment: datetime) -> int:
    return (moment - _EPOCH) // _MS


def _naive(ms: int) -> datetime:
    return _EPOCH_NAIVE + ms * _MS


def _naive_ms(wall: datetime) -> int:
    return (wall - _EPOCH_NAIVE) // _MS


@lru_cache(maxsize=64)
def _zone(tz: str) -> ZoneInfo:
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise InvalidValue("timezone", tz, TZ_HINT) from None


# --- cron: the expression parsed into one set of values per field -------------------------

CRON_HINT = (
    "5 fields: minute hour day-of-month month day-of-week; each field is *, a number, "
    "a range a-b, a step */n, a-b/n or a/n, or a comma list of those; names JAN-DEC and "
    "SUN-SAT; @hourly, @daily, @weekly, @monthly, @yearly; e.g. '0 9 * * MON-FRI'"
)

_FIELD_NAMES = ("minute", "hour", "day-of-month", "month", "day-of-week")
# Bounds as written; day-of-week 7 is Sunday and folds to 0 after parsing.
_BOUNDS = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7))
# What ``*`` and ``N/S`` run to (croniter's day-of-week maximum is 6, so ``1/3`` is 1,4).
_STAR = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 6))
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
_NAMES: tuple[dict[str, int], ...] = (
    {},
    {},
    {},
    {name: i + 1 for i, name in enumerate(_MONTHS)},
    {name: i for i, name in enumerate(_WEEKDAYS)},
)
_ALIASES = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_ITEM = re.compile(r"(?P<low>\*|[0-9]+|[a-z]+)(?:-(?P<high>[0-9]+|[a-z]+))?(?:/(?P<step>[0-9]+))?")
# Longest days of each month, leap years included: February 29 is a real (rare) date.
_MONTH_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


class _Fields(NamedTuple):
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]
    days_restricted: bool
    weekdays_restricted: bool
    # The minute or hour field starts with ``*`` (Debian cron's MIN_STAR / HR_STAR): the
    # schedule runs in real time across DST changes instead of by wall-clock slot.
    wildcard: bool

    def croniter_expr(self) -> str:
        """Plain numeric lists; a day field written ``*`` stays ``*`` so croniter's day_or
        applies the OR rule exactly when both day fields are restricted."""

        def listed(values: frozenset[int], restricted: bool = True) -> str:
            return ",".join(map(str, sorted(values))) if restricted else "*"

        restricted = (True, True, self.days_restricted, True, self.weekdays_restricted)
        return " ".join(map(listed, self[:5], restricted))


@lru_cache(maxsize=256)
def parse(expr: str) -> _Fields:
    text = _ALIASES.get(expr.strip().lower(), expr.strip().lower())
    if text.startswith("@"):
        _refuse(expr, f"unknown shorthand {text.split()[0]!r}")
    parts = text.split()
    if len(parts) != 5:
        extra = " (seconds and year fields are not supported)" if len(parts) in (6, 7) else ""
        _refuse(expr, f"it has {len(parts)} fields, deskd takes exactly 5{extra}")
    sets = [
        frozenset(v for item in part.split(",") for v in _parse_item(expr, index, item))
        for index, part in enumerate(parts)
    ]
    fields = _Fields(
        minutes=sets[0],
        hours=sets[1],
        days=sets[2],
        months=sets[3],
        weekdays=frozenset(day % 7 for day in sets[4]),
        days_restricted=parts[2] != "*",
        weekdays_restricted=parts[4] != "*",
        wildcard=parts[0].startswith("*") or parts[1].startswith("*"),
    )
    if fields.days_restricted and not fields.weekdays_restricted:
        longest = max(_MONTH_DAYS[month - 1] for month in fields.months)
        if min(fields.days) > longest:
            months = ", ".join(_MONTHS[m - 1].upper() for m in sorted(fields.months))
            raise InvalidValue(
                "cron expression",
                expr,
                f"it can never fire: no month in {months} has day {min(fields.days)}",
            )
    return fields


def _parse_item(expr: str, index: int, item: str) -> range:
    name = _FIELD_NAMES[index]
    match = _ITEM.fullmatch(item)
    if match is None:
        _refuse(
            expr, f"{name} field: {item!r} is not understood (L, W, #, ? and H are not supported)"
        )
    low_text, high_text, step_text = match.group("low", "high", "step")
    step = 1 if step_text is None else int(step_text)
    if step == 0:
        _refuse(expr, f"{name} field: {item!r} has a step of 0")
    if low_text == "*":
        if high_text is not None:
            _refuse(expr, f"{name} field: {item!r} is not understood")
        low, high = _STAR[index]
    else:
        low = _value(expr, index, low_text)
        if high_text is not None:
            high = _value(expr, index, high_text)
        elif step_text is not None:
            high = max(_STAR[index][1], low)  # N/S runs to the field's maximum
        else:
            high = low
    if low > high:
        _refuse(expr, f"{name} field: range {item!r} runs backwards")
    return range(low, high + 1, step)


def _value(expr: str, index: int, text: str) -> int:
    name = _FIELD_NAMES[index]
    lowest, highest = _BOUNDS[index]
    if text.isdigit():
        value = int(text)
        if not lowest <= value <= highest:
            _refuse(expr, f"{name} field: {value} is outside {lowest}-{highest}")
        return value
    if text in _NAMES[index]:
        return _NAMES[index][text]
    if _NAMES[index]:
        names = "JAN-DEC" if index == 3 else "SUN-SAT"
        _refuse(expr, f"{name} field: {text!r} is neither a number nor a name ({names})")
    _refuse(expr, f"{name} field: {text!r} is not a number")


def _refuse(expr: str, reason: str) -> NoReturn:
    raise InvalidValue("cron expression", expr, f"{reason}; {CRON_HINT}")
