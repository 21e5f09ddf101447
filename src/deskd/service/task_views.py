"""The tasks part of the planner's snapshot (filled by the tasks issue)."""

from __future__ import annotations

import sqlite3

from deskd.core.records import TaskView
from deskd.desk import Desk


def load_task_views(
    conn: sqlite3.Connection, desk: Desk, *, now: int
) -> tuple[tuple[TaskView, ...], dict[int, str], frozenset[int]]:
    """(open tasks with ``stalled`` derived, every task's assignee, done task ids)."""
    return (), {}, frozenset()
