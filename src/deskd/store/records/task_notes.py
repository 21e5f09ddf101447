"""A task's notes (store/tasks.py ``task_notes``), built only when a task's notes are read."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskNote:
    """One change or note on a task (``change`` is the JSON of what changed)."""

    id: int
    task_id: int
    at: int
    by: str
    change: str
    note: str
