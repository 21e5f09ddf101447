"""What the desk's launches used (the usage columns of a launch's primary attempt,
``USAGE`` in store/schema.py), summed: one named function per statement.

A launch counts when it finished, at ``finished_at``; ride-along attempts share another's
launch and carry no usage. Every statement reads the rows of the ``attempts_usage`` index.
A sum over figures no launch reported is NULL (None): unknown, not zero.
"""

from __future__ import annotations

from typing import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from deskd.store.dialect import Connection

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
    """Launches planned or running, per host that runs them."""
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
    return [
        (
            str(r[0]),
            None if r[1] is None else int(r[1]),
            None if r[2] is None else float(r[2]),
            int(r[3]),
        )
        for r in rows
    ]
