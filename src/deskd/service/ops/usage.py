"""``deskd usage`` and the console's usage page: what the desk's launches used, by role, by
day in the desk's time zone, or by model (docs/contract.md "Usage")."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from deskd.core.timeparse import from_ms, iso_utc, local_day_start, parse_duration, parse_instant
from deskd.errors import InvalidValue
from deskd.service.desk.context import DeskContext
from deskd.store import metrics as usage_rows

BY = ("role", "day", "model")
DEFAULT_DAYS = 7
SINCE_HINT = "a duration back from now like 24h or 30d, or an ISO 8601 time like 2026-12-01"
FIGURES = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def since_of(text: str | None, *, now: int, tz: str) -> int:
    """The instant ``--since`` names: a duration back from ``now`` or a time (a naive one in
    the desk's time zone); without one, local midnight ``DEFAULT_DAYS - 1`` days ago."""
    if not text:
        return local_day_start(now - (DEFAULT_DAYS - 1) * 86_400_000, tz)
    try:
        return now - parse_duration(text) * 1000
    except InvalidValue:
        pass
    try:
        return parse_instant(text, tz=tz)
    except InvalidValue:
        raise InvalidValue("--since", text, SINCE_HINT) from None


def usage_report(ctx: DeskContext, *, by: str = "role", since: str | None = None) -> dict[str, Any]:
    """The sums by ``by`` (role, day, model) of the launches that finished since ``since``;
    ``day`` has one row per day and role."""
    if by not in BY:
        raise InvalidValue("--by", by, f"one of {', '.join(BY)}")
    tz = ctx.desk.timezone
    start = since_of(since, now=ctx.now, tz=tz)
    groups: dict[tuple[str | None, ...], list[usage_rows.UsageTotal]] = defaultdict(list)
    if by == "day":
        for t in usage_rows.usage_by_quarter_hour(ctx.conn, since=start):
            day = from_ms(t.quarter * usage_rows.QUARTER_HOUR_MS, tz).date().isoformat()
            groups[(day, t.key)].append(t)
    else:
        sums = usage_rows.usage_by_role if by == "role" else usage_rows.usage_by_model
        for t in sums(ctx.conn, since=start):
            groups[(t.key,)].append(t)
    names = ("day", "role") if by == "day" else (by,)
    rows = [entry(dict(zip(names, key, strict=True)), sums) for key, sums in groups.items()]
    every = [t for sums in groups.values() for t in sums]
    return {
        "by": by,
        "since": iso_utc(start),
        "until": iso_utc(ctx.now),
        "timezone": tz,
        "rows": rows,
        "total": entry({}, every),
    }


def entry(keys: dict[str, Any], sums: Iterable[usage_rows.UsageTotal]) -> dict[str, Any]:
    """``keys`` with the summed figures (None where no launch reported one), ``tokens`` (every
    kind together) and ``cost_usd``."""
    out: dict[str, Any] = {**keys, "launches": 0, **dict.fromkeys(FIGURES), "cost_usd": None}
    for t in sums:
        out["launches"] += t.launches
        for name in (*FIGURES, "cost_usd"):
            value = getattr(t, name)
            if value is not None:
                out[name] = (out[name] or 0) + value
    out["tokens"] = sum(out[f] or 0 for f in FIGURES)
    if out["cost_usd"] is not None:
        out["cost_usd"] = round(out["cost_usd"], 6)
    return out
