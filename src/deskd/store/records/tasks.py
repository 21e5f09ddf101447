"""Tasks (store/tasks.py); their notes are task_notes.py."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Task:
    """One task row."""

    id: int
    role: str
    title: str
    detail: str
    status: str
    priority: int
    blocked_on: str | None
    due_at: int | None
    created_by: str
    created_at: int
    updated_at: int
    closed_at: int | None
    capability: str | None
    routed_why: str | None
