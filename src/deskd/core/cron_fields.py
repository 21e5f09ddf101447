"""Cron expressions parsed into the value sets the schedule's DST walk uses (core/schedule.py).

Apart from core/schedule.py, and imported when a cron expression is first parsed: ``hook add
--every`` or ``--at`` (and a tick whose due hooks are not cron) never compile its pattern.
Which forms deskd accepts and refuses is core/schedule.py's docstring.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple, NoReturn

from deskd.errors import InvalidValue

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

        return " ".join(
            (
                listed(self.minutes),
                listed(self.hours),
                listed(self.days, self.days_restricted),
                listed(self.months),
                listed(self.weekdays, self.weekdays_restricted),
            )
        )


@lru_cache(maxsize=256)
def parse(expr: str) -> _Fields:
    text = _ALIASES.get(expr.strip().lower(), expr.strip().lower())
    if text.startswith("@"):
        _refuse(expr, f"unknown shorthand {text.split()[0]!r}")
    parts = text.split()
    if len(parts) != 5:
        extra = " (seconds and year fields are not supported)" if len(parts) in (6, 7) else ""
        _refuse(expr, f"it has {len(parts)} fields, deskd takes exactly 5{extra}")
    sets = [_parse_field(expr, index, part) for index, part in enumerate(parts)]
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


def _parse_field(expr: str, index: int, part: str) -> frozenset[int]:
    return frozenset(v for item in part.split(",") for v in _parse_item(expr, index, item))


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
