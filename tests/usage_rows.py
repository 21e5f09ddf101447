"""Finished launches with usage, written straight into a desk's ledger: the rows `deskd
usage`, the metrics and the console's usage page read (tests/store/test_usage_report.py,
tests/web/test_console_usage.py). The executor's own writing of them is
tests/executor/test_usage_recorded.py's."""

from __future__ import annotations

from datetime import datetime

from conftest import Desk
from deskd.store.roles import upsert_role


def with_roles(desk: Desk, roles: tuple[str, ...] = ("alpha", "beta", "gamma")) -> None:
    """The desk's database, migrated, with ``roles`` in it (attempts name their role)."""
    desk.ok("status")
    with desk.db() as conn:
        for role in roles:
            upsert_role(conn, name=role, title=role, enabled=True, now=0)


def finished(
    desk: Desk,
    role: str,
    at: str,
    tokens: tuple[int | None, ...] = (None, None, None, None),
    *,
    model: str | None = None,
    cost: float | None = None,
    ride_along_of: int | None = None,
) -> int:
    """A launch of ``role`` that finished at ``at`` (UTC) reporting ``tokens`` and ``model``."""
    ms = int(datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() * 1000)
    with desk.db() as conn:
        cur = conn.execute(
            "INSERT INTO attempts (key, kind, role, generation, rung, level, reason, item_ids, "
            "task_ids, attempted_at, outcome, launch_status, launched_at, finished_at, "
            "primary_id, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, "
            "model, cost_usd) VALUES (?, 'inbox', ?, 1, 'spawn', 0, 'test', '[]', '[]', ?, "
            "'resolved', 'finished', ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (f"k-{role}-{at}", role, ms, ms, ms, ride_along_of, *tokens, model, cost),
        )
        return int(cur.fetchone()[0])
