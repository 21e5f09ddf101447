"""Task rules: the one transition table, who may change a task and what a change gives, the
order tasks sort in, and postconditions (``--done-when``).

The CLI, the console and the tests all read ``TRANSITIONS``; ``docs/cli.md`` prints it (a test
pins the two together). ``due_at`` is a soft deadline: it sorts and flags, and never wakes
anyone (docs/architecture.md).

A check is ``probe:MODULE:FUNC`` (an allowlisted probe: it passes when it returns a truthy
value) or a command line, split as a shell would split it and run without a shell in the
role's workdir (it passes when it exits 0). A run that cannot finish (a timeout, a crash, a
command that will not start) is neither pass nor fail: it is retried and shown, and never
closes the task (docs/contract.md, "Postconditions").
"""

from __future__ import annotations

import shlex
from typing import Any, NamedTuple

from deskd.core.values import SUPERVISOR, URGENT
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

PROBE = "probe:"
DEFAULT_TIMEOUT_S = 300
OUTPUT_CAP = 2000
"""A failed check's output as the prompt and the task's history show it: its last characters,
where a build or a test run says what broke."""
RETRY_S = (60, 120, 300, 600)
"""Waits before running again a check that could not run (the last one repeats)."""

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
    """The output of its check's last failure, while reopened by it (core/tasks.py)."""

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


class CheckRun(NamedTuple):
    """One run's verdict: ``passed`` True or False, or None when it could not run."""

    passed: bool | None
    output: str


def parse_check(spec: str, allowlist: list[str]) -> tuple[str, list[str]]:
    """(``probe``, [MODULE:FUNC]) or (``command``, argv); refused with what is wrong."""
    text = spec.strip()
    if text.startswith(PROBE):
        from deskd.core.wakehooks import check_probe_target  # its cron rules: only for a probe

        return "probe", [check_probe_target(text[len(PROBE) :], allowlist, what="--done-when")]
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise InvalidValue(
            "--done-when", spec, f"a command line a shell could split: {exc}"
        ) from None
    if not argv:
        raise InvalidValue("--done-when", spec, "probe:MODULE:FUNC or a command, like 'make test'")
    return "command", argv


def probe_verdict(value: Any, error: str | None) -> CheckRun:
    """A probe check: its value truthy passes, falsy fails; an error means it did not run."""
    if error is not None:
        return CheckRun(None, error)
    return CheckRun(bool(value), f"the probe returned {value!r}")


def command_verdict(exit_code: int | None, output: str, error: str | None) -> CheckRun:
    if error is not None or exit_code is None:
        return CheckRun(None, error or "it did not finish")
    return CheckRun(exit_code == 0, f"exit {exit_code}\n{output}".rstrip())


def trimmed(output: str) -> str:
    """The end of ``output``, at most ``OUTPUT_CAP`` characters, marked when cut."""
    text = output.strip()
    return text if len(text) <= OUTPUT_CAP else "…" + text[-OUTPUT_CAP:]


def retry_after_s(errors: int) -> int:
    """How long to wait before the ``errors``-th run that could not run is tried again."""
    return RETRY_S[min(errors, len(RETRY_S)) - 1]
