"""Task notes, wakes and checks, wake hooks and questions (store/tasks.py, hooks.py, checks.py,
questions.py); a task is the rules' record (core/tasks.py)."""

from __future__ import annotations

from typing import NamedTuple


class TaskNote(NamedTuple):
    """One change or note on a task (``change`` is the JSON of what changed)."""

    id: int
    task_id: int
    at: int
    by: str
    change: str
    note: str


class IdleWake(NamedTuple):
    """An idle-task wake that ran: the tasks its prompt offered (JSON) and when it launched."""

    task_ids: str
    launched_at: int


class Hook(NamedTuple):
    """A wake hook: a schedule (or probe) a role registered for itself (``spec`` is JSON)."""

    id: int
    owner: str
    kind: str
    spec: str
    title: str
    body: str
    priority: int
    status: str
    created_at: int
    until_at: int | None
    next_fire_at: int | None
    last_fire_at: int | None
    fire_count: int
    missed_count: int
    error_streak: int
    last_error: str | None
    retry_at: int | None


class TaskCheck(NamedTuple):
    """A task's postcondition and its last run (store/tasks.py)."""

    task_id: int
    spec: str
    timeout_s: int
    state: str
    claimed_at: int | None
    claimed_by: str | None
    started_at: int | None
    finished_at: int | None
    failures: int
    errors: int
    retry_at: int | None
    outcome: str | None
    output: str | None


class Question(NamedTuple):
    """One question an agent asked a person (``options``: a JSON list, or None for free text)."""

    id: int
    role: str
    item_id: int
    text: str
    options: str | None
    task_id: int | None
    asked_at: int
    expires_at: int
    answer: str | None
    answered_by: str | None
    answered_at: int | None
    answer_item_id: int | None
