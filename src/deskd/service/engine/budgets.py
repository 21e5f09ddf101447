"""Budgets as the planner weighs them: each limit of ``[budget]`` and of a role's ``budget``,
with what launches used in its period (the desk's time zone) and what running ones are
expected to use; and `deskd budget`, the same figures for a person."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from deskd.core.govern import HELD
from deskd.core.records import BudgetUse
from deskd.core.timeparse import from_ms, iso_utc, to_ms
from deskd.store.metrics import usage_since

if TYPE_CHECKING:
    from deskd.config.desk import BudgetSection, Desk
    from deskd.service.desk.context import DeskContext
    from deskd.store.dialect import Connection

PERIODS = ("day", "week", "month", "window")
UNITS = ("tokens", "usd")
HISTORY_MS = 7 * 86_400_000
"""A role's expected use is the median of its launches over the last week."""


def period_bounds(period: str, now: int, tz: str, window_s: int | None) -> tuple[int, int | None]:
    """The start of the period holding ``now`` and when it turns (None: a rolling window)."""
    if period == "window":
        return now - (window_s or 0) * 1000, None
    local = from_ms(now, tz).date()
    if period == "month":
        local = local.replace(day=1)
        end = (local.replace(day=28) + timedelta(days=4)).replace(day=1)
    else:
        week = period == "week"
        local -= timedelta(days=local.weekday() if week else 0)
        end = local + timedelta(days=7 if week else 1)
    zone = ZoneInfo(tz)
    start = datetime(local.year, local.month, local.day, tzinfo=zone)
    return to_ms(start), to_ms(datetime(end.year, end.month, end.day, tzinfo=zone))


def _limits(desk: Desk) -> list[tuple[str | None, BudgetSection, str, str, float]]:
    """(role or None, its table, unit, period, limit) of every limit the desk file sets."""
    tables = [(None, desk.data.budget)] + [
        (name, r.budget) for name, r in sorted(desk.roles.items()) if r.budget is not None
    ]
    return [
        (role, table, unit, period, float(limit))
        for role, table in tables
        for unit in UNITS
        for period in PERIODS
        if (limit := getattr(table, f"{unit}_per_{period}")) is not None
    ]


def load_budgets(
    conn: Connection, desk: Desk, *, now: int, running: set[str]
) -> tuple[tuple[BudgetUse, ...], dict[str, tuple[float, float]]]:
    """Every budget with its use, and each role's expected (tokens, dollars) per launch;
    nothing is read when the desk sets no budget."""
    limits = _limits(desk)
    if not limits:
        return (), {}
    from statistics import median  # decimal and fractions: only for a desk with budgets

    bounds = {
        (role, period): period_bounds(period, now, desk.timezone, table.window)
        for role, table, _unit, period, _limit in limits
    }
    rows = usage_since(conn, min([now - HISTORY_MS, *(s for s, _e in bounds.values())]))
    default = desk.data.budget.expected_tokens or 0
    expected: dict[str, tuple[float, float]] = {}
    for name, config in desk.roles.items():
        recent = [r for r in rows if r[0] == name and r[3] >= now - HISTORY_MS]
        tokens = [float(r[1]) for r in recent if r[1] is not None]
        dollars = [r[2] for r in recent if r[2] is not None]
        own = config.budget.expected_tokens if config.budget is not None else None
        expected[name] = (
            median(tokens) if tokens else float(own or default),
            median(dollars) if dollars else 0.0,
        )
    budgets = []
    for role, table, unit, period, limit in limits:
        start, turns = bounds[role, period]
        mine = [r for r in rows if r[3] >= start and role in (None, r[0])]
        column = 1 if unit == "tokens" else 2
        # A rolling window frees as its oldest counted use leaves it.
        end = mine[0][3] + (table.window or 0) * 1000 if turns is None and mine else turns
        budgets.append(
            BudgetUse(
                name=f"{role or 'desk'}/{period}" + ("" if unit == "tokens" else "-usd"),
                role=role,
                unit=unit,
                limit=limit,
                reserve=table.reserve,
                used=sum(float(r[column] or 0) for r in mine),
                running=sum(
                    expected[n][column - 1] for n in running if role in (None, n) and n in expected
                ),
                period_start=start,
                frees_at=end,
                frees=_when(end, now, desk.timezone),
            )
        )
    return tuple(budgets), expected


def _when(at: int | None, now: int, tz: str) -> str:
    if at is None:  # nothing used in the window yet: only running launches fill it
        return "as running launches end"
    local = from_ms(at, tz)
    shown = local.strftime("%H:%M") if at - now < 86_400_000 else local.strftime("%Y-%m-%d %H:%M")
    return f"{shown} {tz}"


def budget_report(ctx: DeskContext) -> list[dict[str, Any]]:
    """`deskd budget --json`: each budget's use, limit, reserve, whether it holds, frees at."""
    from deskd.store.attempts import in_flight_roles, live_attempts
    from deskd.store.db import read_transaction

    with read_transaction(ctx.conn):
        budgets, _ = load_budgets(
            ctx.conn, ctx.desk, now=ctx.now, running=in_flight_roles(ctx.conn)
        )
        waits = [a.skipped or "" for a in live_attempts(ctx.conn)]
    out = []
    for b in budgets:
        held = sum(1 for s in waits if s.startswith(f"{HELD}{b.name}:"))
        fields = {**b._asdict(), "holding": held > 0, "held": held}
        fields.update(period_start=iso_utc(b.period_start), frees_at=iso_utc(b.frees_at))
        out.append({"budget": fields.pop("name"), **fields})
    return out
