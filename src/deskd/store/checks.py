"""Task checks (``task_checks``): a task's postcondition and the ledger of its runs.

A run is claimed before it starts (``started_at``, compare-and-set on the state and the old
mark) and completed after, so a tick that dies mid-run leaves the check ``due`` and the next
tick runs it again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from deskd.store.query import marks
from deskd.store.records import records_of
from deskd.store.records.work import TaskCheck

if TYPE_CHECKING:
    from deskd.store.dialect import Connection


def insert_check(conn: Connection, *, task_id: int, spec: str, timeout_s: int) -> None:
    conn.execute(
        "INSERT INTO task_checks (task_id, spec, timeout_s) VALUES (?, ?, ?)",
        (task_id, spec, timeout_s),
    )


def checks_of(conn: Connection, task_ids: Sequence[int]) -> list[TaskCheck]:
    if not task_ids:
        return []
    rows = conn.execute(
        f"SELECT * FROM task_checks WHERE task_id IN ({marks(task_ids)})", list(task_ids)
    )
    return records_of(TaskCheck, rows)


def claim_done(conn: Connection, task_id: int, *, by: str, now: int) -> int:
    """The assignee says done: the check is due on the next tick (again, if it was)."""
    return conn.execute(
        "UPDATE task_checks SET state = 'due', claimed_at = ?, claimed_by = ?, retry_at = NULL "
        "WHERE task_id = ? AND state != 'passed'",
        (now, by, task_id),
    ).rowcount


def due_checks(conn: Connection, *, now: int) -> list[TaskCheck]:
    rows = conn.execute(
        "SELECT * FROM task_checks WHERE state = 'due' AND (retry_at IS NULL OR retry_at <= ?) "
        "ORDER BY task_id",
        (now,),
    )
    return records_of(TaskCheck, rows)


def start_run(conn: Connection, task_id: int, *, now: int, claimed_at: int) -> int:
    """The ledger mark before a run; 0 when the check changed meanwhile (another claim)."""
    return conn.execute(
        "UPDATE task_checks SET started_at = ? WHERE task_id = ? AND state = 'due' "
        "AND claimed_at = ?",
        (now, task_id, claimed_at),
    ).rowcount


def finish_run(
    conn: Connection,
    task_id: int,
    *,
    state: str,
    outcome: str,
    output: str,
    failures: int,
    errors: int,
    retry_at: int | None,
    now: int,
    started_at: int,
) -> int:
    """The run's verdict; compare-and-set on its own start mark."""
    return conn.execute(
        "UPDATE task_checks SET state = ?, outcome = ?, output = ?, failures = ?, errors = ?, "
        "retry_at = ?, finished_at = ? WHERE task_id = ? AND started_at = ?",
        (state, outcome, output, failures, errors, retry_at, now, task_id, started_at),
    ).rowcount
