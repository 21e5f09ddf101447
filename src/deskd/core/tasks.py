"""Task rules: the one transition table, who may change a task, and the order tasks sort in.

The CLI, the console and the tests all read ``TRANSITIONS``; ``docs/cli.md`` prints it
(``transition_table_markdown``). ``due_at`` is a soft deadline: it sorts and flags, and never
wakes anyone (docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from deskd.core.values import SUPERVISOR
from deskd.errors import (
    BadTransition,
    BlockedNeedsDependency,
    BlockedOnWithoutBlocked,
    InvalidValue,
    NotTaskParty,
    TaskClosed,
)

STATUSES: tuple[str, ...] = ("pending", "in_progress", "blocked", "done", "cancelled")
OPEN: frozenset[str] = frozenset({"pending", "in_progress", "blocked"})
CLOSED: frozenset[str] = frozenset({"done", "cancelled"})
ACTIONABLE: frozenset[str] = frozenset({"pending", "in_progress"})
"""What an idle role is woken for (a blocked task waits for its dependency)."""

TRANSITIONS: dict[str, frozenset[str]] = {
    "pending": frozenset({"in_progress", "blocked", "done", "cancelled"}),
    "in_progress": frozenset({"pending", "blocked", "done", "cancelled"}),
    "blocked": frozenset({"pending", "in_progress", "done", "cancelled"}),
    # Closed is history: a finished or cancelled task is never reopened; add a new one.
    "done": frozenset(),
    "cancelled": frozenset(),
}
"""``TRANSITIONS[old]`` is every status a task in ``old`` may move to."""

OPERATOR = "operator"
"""The ``by`` of a change made at the shell without ``DESKD_ROLE``: may change any task."""


def check_status(status: str) -> str:
    if status not in STATUSES:
        raise InvalidValue("status", status, "choose one of: " + ", ".join(STATUSES))
    return status


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskState:
    """The parts of a task the rules look at."""

    id: int
    role: str
    status: str
    blocked_on: str | None = None
    created_by: str = OPERATOR


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """What a caller asked to change (None: leave as is)."""

    status: str | None = None
    blocked_on: str | None = None
    role: str | None = None


def may_change(task: TaskState, *, by: str) -> bool:
    """The assignee, the creator, or the operator may change a task; any other role may not."""
    # The supervisor is a person too (the console): it may change any task.
    return by in (OPERATOR, SUPERVISOR, task.role, task.created_by)


def check_party(task: TaskState, *, by: str) -> None:
    if not may_change(task, by=by):
        raise NotTaskParty(by, task.id, role=task.role, created_by=task.created_by)


def next_state(task: TaskState, change: Change) -> TaskState:
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
    return TaskState(
        id=task.id,
        role=change.role or task.role,
        status=status,
        blocked_on=blocked_on,
        created_by=task.created_by,
    )


class Sortable(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def priority(self) -> int: ...
    @property
    def due_at(self) -> int | None: ...


URGENT_RANK = 3


def is_overdue(due_at: int | None, *, now: int) -> bool:
    return due_at is not None and due_at <= now


def sort_key(task: Sortable, *, now: int) -> tuple[int, int, int, int, int, int]:
    """Overdue first, then urgent, then soonest due (no due date last), then priority, id."""
    due = task.due_at
    return (
        0 if is_overdue(due, now=now) else 1,
        0 if task.priority >= URGENT_RANK else 1,
        1 if due is None else 0,
        due or 0,
        -task.priority,
        task.id,
    )


def transition_table_markdown() -> str:
    """The transition table as docs/cli.md prints it (a test pins the two together)."""
    lines = ["| from | may move to |", "|---|---|"]
    for status in STATUSES:
        targets = ", ".join(f"`{s}`" for s in STATUSES if s in TRANSITIONS[status])
        lines.append(f"| `{status}` | {targets or '— (closed)'} |")
    return "\n".join(lines)
