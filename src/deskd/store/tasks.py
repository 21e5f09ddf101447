"""Tasks, their change history (``task_notes``) and their checks (``task_checks``); the ledger
reads a stall is derived from.

Open tasks are read through the partial index ``tasks_open``; a stall is never stored: it is
counted at read time from the idle-task attempts whose launch ran (``idle_wakes_since``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from deskd.core.tasks import Task
from deskd.store.dialect import Connection, Row
from deskd.store.query import OPEN_SQL, marks, select_where
from deskd.store.records import maybe_record, records_of
from deskd.store.records.work import IdleWake, TaskCheck, TaskNote


def insert_task(
    conn: Connection,
    *,
    role: str,
    title: str,
    detail: str,
    priority: int,
    due_at: int | None,
    created_by: str,
    now: int,
) -> int:
    cur = conn.execute(
        "INSERT INTO tasks (role, title, detail, priority, due_at, created_by, created_at, "
        "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (role, title, detail, priority, due_at, created_by, now, now),
    )
    return int(cur.fetchone()[0])


def get_task(conn: Connection, task_id: int) -> Task | None:
    row = conn.execute("SELECT * FROM tasks WHERE id = ?", (task_id,)).fetchone()
    return maybe_record(Task, row)


def update_task(
    conn: Connection,
    task_id: int,
    *,
    role: str,
    status: str,
    priority: int,
    blocked_on: str | None,
    due_at: int | None,
    now: int,
    expect_updated_at: int,
) -> int:
    """Write a task's new state; compare-and-set on ``updated_at`` so a racing change wins once."""
    return conn.execute(
        "UPDATE tasks SET role = ?, status = ?, priority = ?, blocked_on = ?, due_at = ?, "
        "updated_at = ?, closed_at = CASE WHEN ? IN ('done', 'cancelled') THEN ? ELSE NULL END "
        "WHERE id = ? AND updated_at = ?",
        (role, status, priority, blocked_on, due_at, now, status, now, task_id, expect_updated_at),
    ).rowcount


def add_task_note(
    conn: Connection, *, task_id: int, at: int, by: str, change: Mapping[str, Any], note: str
) -> int:
    cur = conn.execute(
        "INSERT INTO task_notes (task_id, at, by, change, note) VALUES (?, ?, ?, ?, ?) RETURNING id",
        (task_id, at, by, json.dumps(change, sort_keys=True), note),
    )
    return int(cur.fetchone()[0])


def task_notes(conn: Connection, task_id: int) -> list[TaskNote]:
    rows = conn.execute("SELECT * FROM task_notes WHERE task_id = ? ORDER BY id", (task_id,))
    return records_of(TaskNote, rows)


def open_tasks(conn: Connection) -> list[Task]:
    """Every pending, in-progress or blocked task (the partial index ``tasks_open``)."""
    rows = conn.execute(f"SELECT * FROM tasks WHERE status IN {OPEN_SQL} ORDER BY role, id")
    return records_of(Task, rows)


def list_tasks(conn: Connection, *, role: str | None, open_only: bool, limit: int) -> list[Task]:
    rows = select_where(
        conn,
        "SELECT * FROM tasks",
        f"status IN {OPEN_SQL}" if open_only else None,
        ("role = ?", role),
        order="id DESC",
        limit=limit,
    )
    return records_of(Task, rows)


def tasks_by_ids(conn: Connection, ids: Sequence[int]) -> list[Task]:
    if not ids:
        return []
    rows = conn.execute(f"SELECT * FROM tasks WHERE id IN ({marks(ids)})", list(ids))
    return records_of(Task, rows)


def live_task_attempt_task_ids(conn: Connection) -> set[int]:
    """Tasks named by live task wakes (so a vanished wake can say why: reassigned, done …)."""
    rows = conn.execute(
        "SELECT task_ids FROM attempts WHERE outcome = 'pending' "
        "AND kind IN ('urgent_task', 'idle_task')"
    ).fetchall()
    return {int(i) for r in rows for i in json.loads(r[0])}


# Roles per statement of ``idle_wakes_since``: two parameters each, far below SQLite's
# limit of 32,766 (3.32+); a desk of this many roles with open tasks is one statement.
_PAIRS = 4000

# "Ran" (the stall rule, docs/architecture.md): the executor claimed it (``launched_at``)
# and it either finished cleanly or landed (the model took a turn carrying the prompt).
# Each (role, since) pair of ``w`` is a range of ``attempts_launched (role, launched_at)``;
# ``CROSS JOIN`` keeps ``w`` outside on SQLite; PostgreSQL reads it as a plain join, and
# there too the pairs drive the index (a hash join would read every launch ever made).
_IDLE_WAKES = (
    "WITH w(role, since) AS (VALUES {pairs}) "
    "SELECT a.role, a.task_ids, a.launched_at FROM w CROSS JOIN attempts a "
    "WHERE a.role = w.role AND a.launched_at >= w.since "
    "AND a.kind = 'idle_task' AND (a.launch_status = 'finished' OR a.landed_at IS NOT NULL) "
    "ORDER BY a.role, a.id"
)


def idle_wakes_since(conn: Connection, since: Mapping[str, int]) -> dict[str, list[IdleWake]]:
    """Per role of ``since``: its idle-task wakes launched at or after ``since[role]`` whose
    launch ran, in launch order — every role in one statement, not one per role.

    Skipped (role busy), never-started, and failed-before-landing launches (authentication,
    overload, executor died) do not count: the agent never had the chance to work the task.
    """
    pairs = sorted(since.items())
    found: list[Row] = []
    for at in range(0, len(pairs), _PAIRS):
        chunk = pairs[at : at + _PAIRS]
        sql = _IDLE_WAKES.format(pairs=", ".join("(?, ?)" for _ in chunk))
        found += conn.execute(sql, [v for pair in chunk for v in pair]).fetchall()
    if not found:  # nothing read, no record built (store/records/__init__.py)
        return {}
    out: dict[str, list[IdleWake]] = {}
    for row in found:
        wake = IdleWake(task_ids=str(row[1]), launched_at=int(row[2]))
        out.setdefault(str(row[0]), []).append(wake)
    return out


# --- task checks (task_checks): a task's postcondition and the ledger of its runs -----------------
# A run is claimed before it starts (``started_at``, compare-and-set on the state and the old
# mark) and completed after, so a tick that dies mid-run leaves the check ``due`` and the next
# tick runs it again.


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
