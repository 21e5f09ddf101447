"""What budgets and the cap on agents running at once read: launches in flight per host, and
what finished launches used (on each launch's primary attempt, as its CLI reported it)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from deskd.store.dialect import Connection


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
