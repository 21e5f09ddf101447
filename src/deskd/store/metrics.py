"""Aggregates of the ledger: behind ``/metrics`` and ``deskd metrics``, and what the desk's
launches used (``deskd usage``, budgets, the cap on agents running at once). One named
function per statement.

Each metrics statement is one ``GROUP BY`` (or one row of sums) over a ledger table, so a
scrape's answer grows with the roles, rungs, channels and hosts, never with history (its
scans do: docs/performance.md; ``deskd prune`` bounds them). Counters count closed rows only,
which never change again, so they go down only when ``deskd prune`` deletes history.

What launches used is the usage columns of a launch's primary attempt (``USAGE`` in
store/schema.py). A launch counts when it finished, at ``finished_at``; ride-along attempts
share another's launch and carry no usage. Every usage sum reads the rows of the
``attempts_usage`` index. A sum over figures no launch reported is NULL (None): unknown, not
zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from deskd.store.dialect import Connection, Sql

TICK_MS_KEY = "tick_ms:"
"""``meta`` key prefix of how long a host's last executing tick took (``tick_ms:HOST``)."""


def closed_attempts(conn: Connection) -> list[tuple[str, str, int]]:
    """(rung, outcome, count) of every closed wake attempt."""
    rows = conn.execute(
        "SELECT rung, outcome, COUNT(*) FROM attempts WHERE outcome <> 'pending' "
        "GROUP BY rung, outcome ORDER BY rung, outcome"
    ).fetchall()
    return [(str(r[0]), str(r[1]), int(r[2])) for r in rows]


def live_wakes(conn: Connection) -> list[tuple[str, str, int]]:
    """(role, rung, count) of the pending attempts: at most one per key, on its live index."""
    rows = conn.execute(
        "SELECT role, rung, COUNT(*) FROM attempts WHERE outcome = 'pending' "
        "GROUP BY role, rung ORDER BY role, rung"
    ).fetchall()
    return [(str(r[0]), str(r[1]), int(r[2])) for r in rows]


def landing_histogram(conn: Connection, bounds_ms: Sequence[int]) -> tuple[list[int], int, int]:
    """(cumulative count at or under each bound, count, sum in ms) of the time from each
    attempt to its landing, over every attempt that landed."""
    cases = "".join(
        f", SUM(CASE WHEN landed_at - attempted_at <= {int(b)} THEN 1 ELSE 0 END)"
        for b in bounds_ms
    )
    row = conn.execute(
        f"SELECT COUNT(*), COALESCE(SUM(landed_at - attempted_at), 0){cases} "
        "FROM attempts WHERE landed_at IS NOT NULL"
    ).fetchone()
    return [int(v or 0) for v in row[2:]], int(row[0]), int(row[1])


def stuck_launches(conn: Connection, *, since: int) -> list[tuple[str, int, str, int, bool]]:
    """(role, attempt id, detail, stopped at, recovered) of each launch stopped as stuck at or
    after ``since`` (its ``launch.stuck`` event, read by time); recovered: a later launch for
    the same key landed."""
    rows = conn.execute(
        "SELECT e.role, a.id, a.launch_detail, e.at, (SELECT MAX(r.landed_at) FROM attempts r "
        "WHERE r.key = a.key AND r.id > a.id) FROM events e JOIN attempts a "
        "ON a.id = CAST(SUBSTR(e.subject, 9) AS INTEGER) "
        "WHERE e.at >= ? AND e.kind = 'launch.stuck' ORDER BY e.at, a.id",
        (since,),
    ).fetchall()
    return [(str(r[0]), int(r[1]), str(r[2]), int(r[3]), r[4] is not None) for r in rows]


def finished_launches(conn: Connection) -> list[tuple[str, str, int]]:
    """(launch status, failure class or '', count) of every launch that ended (ride-alongs,
    which share another attempt's launch, are not launches)."""
    rows = conn.execute(
        "SELECT launch_status, COALESCE(failure_class, ''), COUNT(*) FROM attempts "
        "WHERE launch_status IN ('finished', 'failed', 'timed_out', 'skipped') "
        "AND primary_id IS NULL GROUP BY launch_status, COALESCE(failure_class, '') "
        "ORDER BY 1, 2"
    ).fetchall()
    return [(str(r[0]), str(r[1]), int(r[2])) for r in rows]


_DELIVERIES = Sql(
    # SQLite reads the JSON with json_each, PostgreSQL with jsonb_array_elements; both group
    # the same way and answer the same columns.
    sqlite=(
        "SELECT json_extract(e.value, '$.name'), json_extract(e.value, '$.status'), "
        "CASE WHEN json_extract(e.value, '$.gave_up') THEN 1 ELSE 0 END, "
        "CASE WHEN pages.resolved_at IS NULL THEN 1 ELSE 0 END, COUNT(*) "
        "FROM pages, json_each(pages.results) AS e GROUP BY 1, 2, 3, 4"
    ),
    postgresql=(
        "SELECT e ->> 'name', e ->> 'status', "
        "CASE WHEN COALESCE((e ->> 'gave_up')::boolean, false) THEN 1 ELSE 0 END, "
        "CASE WHEN pages.resolved_at IS NULL THEN 1 ELSE 0 END, COUNT(*) "
        "FROM pages, jsonb_array_elements(pages.results::jsonb) AS e GROUP BY 1, 2, 3, 4"
    ),
)


def page_deliveries(conn: Connection) -> list[tuple[str, str, bool, bool, int]]:
    """(channel, status, gave up, page open, count) of every channel URL a page went to."""
    rows = conn.execute(_DELIVERIES).fetchall()
    return [(str(r[0]), str(r[1]), bool(r[2]), bool(r[3]), int(r[4])) for r in rows]


def tick_durations(conn: Connection) -> list[tuple[str, int]]:
    """(host, ms) of each host's last executing tick, as the tick recorded it in ``meta``."""
    rows = conn.execute(
        "SELECT key, value FROM meta WHERE key LIKE ? ORDER BY key", (f"{TICK_MS_KEY}%",)
    ).fetchall()
    return [(str(r[0])[len(TICK_MS_KEY) :], int(r[1])) for r in rows]


def paused_roles(conn: Connection) -> list[str]:
    """The roles under a live pause; '' stands for the whole desk."""
    rows = conn.execute(
        "SELECT DISTINCT COALESCE(role, '') FROM pauses WHERE ended_at IS NULL ORDER BY 1"
    ).fetchall()
    return [str(r[0]) for r in rows]


# --- what the launches used -------------------------------------------------------------------

QUARTER_HOUR_MS = 900_000
"""Day totals are summed by UTC quarter hour in SQL and put into the desk's local days by the
caller: every time zone's offset is a whole number of quarter hours, and no SQL both
backends accept converts time zones."""

_SUMS = (
    "COUNT(launched_at), SUM(input_tokens), SUM(output_tokens), SUM(cache_read_tokens), "
    "SUM(cache_write_tokens), SUM(cost_usd)"
)
_LAUNCHES = (
    "FROM attempts WHERE primary_id IS NULL AND finished_at IS NOT NULL AND finished_at >= ?"
)


class UsageTotal(NamedTuple):
    """The sums of one group (a role, a model, a role's quarter hour)."""

    key: str | None
    launches: int
    input_tokens: int | None
    output_tokens: int | None
    cache_read_tokens: int | None
    cache_write_tokens: int | None
    cost_usd: float | None
    quarter: int  # usage_by_quarter_hour: the UTC quarter hour (ms // QUARTER_HOUR_MS); else 0


def _totals(rows: list[tuple[object, ...]]) -> list[UsageTotal]:
    # PostgreSQL sums integers as numeric: back to int (cost_usd is a float on both).
    return [
        UsageTotal._make(
            [r[0], *(v if v is None or isinstance(v, float) else int(str(v)) for v in r[1:])]
        )
        for r in rows
    ]


def usage_by_role(conn: Connection, *, since: int) -> list[UsageTotal]:
    """Each role's sums over the launches that finished at or after ``since``."""
    sql = f"SELECT role, {_SUMS}, 0 {_LAUNCHES} GROUP BY role ORDER BY role"
    return _totals(conn.execute(sql, (since,)).fetchall())


def usage_by_model(conn: Connection, *, since: int) -> list[UsageTotal]:
    """Each model's sums (None: the CLI named none) since ``since``."""
    sql = f"SELECT model, {_SUMS}, 0 {_LAUNCHES} GROUP BY model ORDER BY model"
    return _totals(conn.execute(sql, (since,)).fetchall())


def usage_by_quarter_hour(conn: Connection, *, since: int) -> list[UsageTotal]:
    """Each role's sums per UTC quarter hour (``quarter``) since ``since``."""
    q = f"finished_at / {QUARTER_HOUR_MS}"
    sql = f"SELECT role, {_SUMS}, {q} {_LAUNCHES} GROUP BY role, {q} ORDER BY {q}, role"
    return _totals(conn.execute(sql, (since,)).fetchall())


# --- what budgets and the cap on agents running at once read --------------------------------------


def in_flight_by_host(conn: Connection) -> dict[str, int]:
    rows = conn.execute(
        "SELECT COALESCE(launch_host, ''), COUNT(*) FROM attempts "
        "WHERE launch_status IN ('planned', 'running') AND primary_id IS NULL "
        "GROUP BY launch_host"
    ).fetchall()
    return {str(r[0]): int(r[1]) for r in rows}


def usage_since(conn: Connection, since: int) -> list[tuple[str, int | None, float | None, int]]:
    """(role, tokens, dollars, finished at) of each launch finished since ``since``: tokens are
    input plus output (None when the CLI reported neither), dollars its cost."""
    rows = conn.execute(
        "SELECT role, CASE WHEN input_tokens IS NULL AND output_tokens IS NULL THEN NULL "
        "ELSE COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0) END, cost_usd, finished_at "
        "FROM attempts WHERE finished_at >= ? AND primary_id IS NULL AND finished_at IS NOT NULL "
        "ORDER BY finished_at",
        (since,),
    ).fetchall()
    # Plain columns, typed alike on both backends (an int sum, a float cost): no conversion.
    return [(str(r[0]), r[1], r[2], int(r[3])) for r in rows]
