"""The refusals of tasks: an unknown task, a change its state or its parties do not allow.
Split from ``deskd.errors`` by concept, to keep that module under 600 lines; mapped to exit
codes the same way (``DeskdError``)."""

from __future__ import annotations

from deskd.errors import DeskdError


class UnknownTask(DeskdError):
    code = "unknown_task"
    says = "no task {task_id} (see `deskd task list --all`)"


class NotTaskParty(DeskdError):
    code = "not_task_party"
    says = (
        "{by!r} may not change task {task_id}: only its assignee ({role!r}), "
        "its creator ({created_by!r}) or the operator (at the shell, without --by) may"
    )


class TaskClosed(DeskdError):
    code = "task_closed"
    says = "task {task_id} is {status}: closed tasks do not change (add a new task)"


class BadTransition(DeskdError):
    code = "bad_transition"
    says = "task {task_id}: {old} → {new} is not allowed (from {old}: {allowed!c})"


class BlockedOnWithoutBlocked(DeskdError):
    code = "blocked_on_without_blocked"
    says = "--blocked-on names what task {task_id} waits for: use it with --status blocked"


class BlockedNeedsDependency(DeskdError):
    code = "blocked_needs_dependency"
    says = (
        "task {task_id}: blocked requires --blocked-on naming the dependency "
        '(e.g. --blocked-on "task 12" or --blocked-on "beta\'s review")'
    )


class NothingToChange(DeskdError):
    code = "nothing_to_change"
    says = (
        "nothing to change on task {task_id} (give --status, --priority, --due, "
        "--for, --blocked-on or --note)"
    )


class TaskChanged(DeskdError):
    """Compare-and-set lost: another writer changed the task between read and write."""

    code = "conflict"
    says = "task {task_id} changed meanwhile; try again"
