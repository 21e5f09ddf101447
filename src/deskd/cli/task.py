"""``deskd task add|list|update|done|cancel|history``: work that outlives sessions."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import click

from deskd.cli.common import ID, Group, desk_context, on_desk
from deskd.cli.inbox import check_target, routed_sentence
from deskd.cli.options import capability_option
from deskd.cli.output import cells, emit, emit_table
from deskd.errors import OptionsConflict
from deskd.service.work.tasks import TaskUpdate, add_task, list_tasks, task_history, update_task

PRIORITY_HELP = "urgent (wakes the assignee at once), high, normal or low."


@click.group(cls=Group)
def task() -> None:
    """Tasks assigned to roles: they outlive sessions and wake idle roles.

    An urgent pending task wakes its assignee whatever its presence; other open work wakes a
    role only when it is idle, and stops waking once stalled (woken stall_after times without
    a change). A due date sorts and flags; it never wakes anyone.

    Examples:
      deskd task add "Review PR 12" --for beta --due 2026-12-02T17:00 --by alpha
      deskd task list --for beta
      deskd task update 3 --status blocked --blocked-on "task 2" --by beta
      deskd task done 3 --note "merged" --by beta
    """


@task.command("add")
@click.argument("title")
@click.option("--for", "role", help="The role the task is assigned to.")
@capability_option
@click.option("--priority", default="normal", show_default=True, help=PRIORITY_HELP)
@click.option("--due", help="A soft deadline (ISO 8601; naive = desk timezone).")
@click.option("--detail", default="", help="What done looks like; line breaks are kept.")
@click.option("--by", help="The creating role (default: DESKD_ROLE, else operator).")
@click.option(
    "--done-when",
    help="A check that must pass before the task is done: probe:MODULE:FUNC, or a command "
    "run in the role's workdir (exit 0 passes).",
)
@click.option("--check-timeout", help="How long the check may run (default 5m), like 90s.")
def add(
    role: str | None,
    capability: str | None,
    done_when: str | None,
    check_timeout: str | None,
    as_json: bool,
    **task: Any,
) -> None:
    """Assign a task to a role, or with --capability to the most available role that has it
    (online or idle first, then fewest open items and tasks, ties by name); when no enabled
    role has it, a person is paged to assign it.

    Examples:
      deskd task add "Rotate the API keys" --for alpha --priority urgent
      deskd task add "Write the weekly report" --for beta --due 2026-12-04T16:00 --json
      deskd task add "Triage the new bug reports" --capability triage
      deskd task add "Fix the failing build" --for beta --done-when "make test"

    With --done-when, `deskd task done` only claims it: the next tick runs the check; it
    passes: the task is done; it fails: the task reopens and the role is woken with the
    check's output; after reopen_after failures (deskd.toml, default 3) a person is paged.
    """
    check_target(role, capability)
    if capability is not None and done_when is not None:
        raise OptionsConflict(
            "--done-when", "runs in the workdir of a role named by --for", ("--capability",)
        )
    with desk_context() as ctx:
        if capability is not None:
            from deskd.routing.service import add_task_by_capability

            routed = add_task_by_capability(ctx, capability=capability, **task)
            emit(routed, as_json, routed_sentence("task", routed))
            return
        assert role is not None
        added = add_task(ctx, role=role, done_when=done_when, check_timeout=check_timeout, **task)
    emit(added, as_json, f"task {added['id']} added for {role} ({task['priority']})")


def _flags(t: Mapping[str, Any]) -> str:
    flags = []
    if t["overdue"]:
        flags.append("OVERDUE")
    if t["stalled"]:
        flags.append(f"STALLED ({t['idle_wakes']} wakes)")
    if t["blocked_on"]:
        flags.append(f"blocked on {t['blocked_on']}")
    check = t["check"]
    if check is not None and check["state"] == "due":
        could_not = f", could not run: {check['output']}" if check["outcome"] == "error" else ""
        flags.append(f"said done, check due{could_not}"[:120])
    elif check is not None and check["outcome"] == "failed" and t["status"] != "done":
        flags.append(f"check failed {check['failures']}x")
    return ", ".join(flags)


@task.command("list")
@click.option("--for", "role", help="Only this role's tasks.")
@click.option("--status", help="Only tasks in this status.")
@click.option("--all", "include_closed", is_flag=True, help="Include done and cancelled tasks.")
def list_(role: str | None, status: str | None, include_closed: bool, as_json: bool) -> None:
    """Open tasks, overdue first, then urgent, then soonest due; stalled and overdue flagged.

    Examples:
      deskd task list
      deskd task list --for alpha --status blocked
      deskd task list --all --json
    """
    rows = on_desk(list_tasks, role=role, status=status, include_closed=include_closed)
    emit_table(
        rows,
        as_json,
        cells(rows, "id role priority status due_local flags title", flags=_flags),
        ["id", "role", "priority", "status", "due", "flags", "title"],
        empty="no tasks" if include_closed else "no open tasks",
    )


@task.command("update")
@click.argument("task_id", type=ID)
@click.option("--status", help="pending, in_progress, blocked, done, cancelled.")
@click.option("--blocked-on", help="What it waits for (required with blocked).")
@click.option("--priority", help=PRIORITY_HELP)
@click.option("--due", help="A new soft deadline; 'none' clears it.")
@click.option("--for", "role", help="Reassign to this role (moves its wake).")
@click.option("--note", help="Progress or a reason; any note revives a stall.")
@click.option("--by", help="Who changes it (default: DESKD_ROLE, else operator).")
def update(task_id: int, by: str | None, as_json: bool, **change: str | None) -> None:
    """Change a task: status (see the transition table in docs/cli.md), dependency,
    priority, due date, assignee, or add a note. Only its assignee, its creator or the
    operator may.

    Examples:
      deskd task update 3 --status in_progress --by beta
      deskd task update 3 --status blocked --blocked-on "alpha's schema change" --by beta
      deskd task update 3 --for gamma --note "gamma owns billing" --by alpha
      deskd task update 3 --note "half done: tests pass, docs left" --by beta
    """
    out = on_desk(update_task, task_id, TaskUpdate(**change), by=by)
    emit(out, as_json, task_said(out))


def _arrows(change: Mapping[str, Any]) -> list[str]:
    return [f"{k} → {v}" for k, v in change.items()]


def task_said(out: Mapping[str, Any]) -> str:
    parts = _arrows(out["changed"])
    if out["note"]:
        parts.append("note added")
    return f"task {out['id']}: " + (", ".join(parts) or "unchanged")


def _close(status: str) -> Callable[..., None]:
    @click.argument("task_id", type=ID)
    @click.option("--note", help="What happened.")
    @click.option("--by", help="Who (default: DESKD_ROLE, else operator).")
    def close(task_id: int, note: str | None, by: str | None, as_json: bool) -> None:
        out = on_desk(update_task, task_id, TaskUpdate(status=status, note=note), by=by)
        emit(out, as_json, task_said(out))

    return close


done = task.command(
    "done",
    help="""Mark a task done (its wakes resolve).

    Examples:
      deskd task done 3 --note "merged in #88" --by beta
    """,
)(_close("done"))

cancel = task.command(
    "cancel",
    help="""Cancel a task (its wakes are withdrawn).

    Examples:
      deskd task cancel 3 --note "not needed after all" --by alpha
    """,
)(_close("cancelled"))


@task.command("history")
@click.argument("task_id", type=ID)
def history(task_id: int, as_json: bool) -> None:
    """Every change of a task: when, by whom, what changed, the note.

    Examples:
      deskd task history 3
    """
    rows = on_desk(task_history, task_id)
    emit_table(
        rows,
        as_json,
        cells(rows, "at by change note", change=lambda r: ", ".join(_arrows(r["change"]))),
        ["at", "by", "change", "note"],
    )
