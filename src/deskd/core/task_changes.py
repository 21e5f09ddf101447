"""Who may change a task and what a change gives, by the transition table of core/tasks.py."""

from __future__ import annotations

from typing import NamedTuple

from deskd.core.tasks import CLOSED, OPERATOR, TRANSITIONS, Task, check_status
from deskd.core.values import SUPERVISOR
from deskd.errors import (
    BadTransition,
    BlockedNeedsDependency,
    BlockedOnWithoutBlocked,
    InvalidValue,
    NotTaskParty,
    TaskClosed,
)


class Change(NamedTuple):
    """What a caller asked to change (None: leave as is)."""

    status: str | None = None
    blocked_on: str | None = None
    role: str | None = None


def check_party(task: Task, *, by: str) -> None:
    """The assignee, the creator, or the operator may change a task; any other role may not."""
    # The supervisor is a person too (the console): it may change any task.
    if by not in (OPERATOR, SUPERVISOR, task.role, task.created_by):
        raise NotTaskParty(by, task.id, role=task.role, created_by=task.created_by)


def next_state(task: Task, change: Change) -> Task:
    """The task after ``change``, or a refusal naming the rule it breaks.

    ``blocked`` needs a dependency (``--blocked-on``); leaving ``blocked`` clears it; a
    dependency given for any other status is refused rather than silently dropped.
    """
    if task.status in CLOSED:
        raise TaskClosed(task.id, task.status)
    status = task.status if change.status is None else check_status(change.status)
    if status != task.status and status not in TRANSITIONS[task.status]:
        raise BadTransition(task.id, task.status, status, TRANSITIONS[task.status])
    blocked_on = task.blocked_on
    if change.blocked_on is not None:
        if status != "blocked":
            raise BlockedOnWithoutBlocked(task.id)
        if not change.blocked_on.strip():
            raise InvalidValue("--blocked-on", change.blocked_on, "name the dependency")
        blocked_on = change.blocked_on.strip()
    if status == "blocked" and not blocked_on:
        raise BlockedNeedsDependency(task.id)
    if status != "blocked":
        blocked_on = None
    return task._replace(role=change.role or task.role, status=status, blocked_on=blocked_on)
