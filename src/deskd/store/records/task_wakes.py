"""What the tick reads of tasks: where a task is, and which idle wakes offered it (store/tasks.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskRef:
    """Where a task is now: its assignee and status."""

    id: int
    role: str
    status: str


@dataclass(frozen=True, slots=True, kw_only=True)
class IdleWake:
    """An idle-task wake that ran: the tasks its prompt offered (JSON) and when it launched."""

    task_ids: str
    launched_at: int
