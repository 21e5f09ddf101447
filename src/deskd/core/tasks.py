"""Task rules: the one transition table and the order tasks sort in (who may change a task,
and what a change gives, are core/task_changes.py's).

The CLI, the console and the tests all read ``TRANSITIONS``; ``docs/cli.md`` prints it
(``transition_table_markdown``). ``due_at`` is a soft deadline: it sorts and flags, and never
wakes anyone (docs/architecture.md).
"""

from __future__ import annotations

from typing import NamedTuple

from deskd.core.values import URGENT
from deskd.errors import InvalidValue

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


class Task(NamedTuple):
    """A task row, and what the snapshot's loader derives from the attempt ledger and its
    check (``stalled``, ``idle_wakes``, ``check_failed``; the store leaves them unset)."""

    id: int
    role: str
    title: str
    status: str
    priority: int
    updated_at: int
    due_at: int | None = None
    blocked_on: str | None = None
    detail: str = ""
    created_by: str = ""
    created_at: int = 0
    closed_at: int | None = None
    capability: str | None = None
    routed_why: str | None = None
    stalled: bool = False
    idle_wakes: int = 0
    check_failed: str | None = None
    """The output of its check's last failure, while reopened by it (core/checks.py)."""

    @property
    def wakes_urgently(self) -> bool:
        """Urgent and pending: it wakes its assignee whatever its presence (``urgent_task``)."""
        return self.status == "pending" and self.priority >= URGENT


def check_status(status: str) -> str:
    if status not in STATUSES:
        raise InvalidValue("status", status, "choose one of: " + ", ".join(STATUSES))
    return status


def is_overdue(due_at: int | None, *, now: int) -> bool:
    return due_at is not None and due_at <= now


def sort_key(task: Task, *, now: int) -> tuple[int, int, int, int, int, int]:
    """Overdue first, then urgent, then soonest due (no due date last), then priority, id."""
    due = task.due_at
    return (
        0 if is_overdue(due, now=now) else 1,
        0 if task.priority >= URGENT else 1,
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
