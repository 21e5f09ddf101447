"""The tasks part of the planner's snapshot, and the task rows as people read them.

A stall is derived here at read time, never stored: a task is stalled once ``stall_after``
idle-task wakes that listed it ran (store/tasks.py ``idle_wakes_since`` says which count)
after its last update. Any update (a note, a status, a reassignment) moves ``updated_at``
and so revives it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TypedDict

from deskd.config.desk import Desk
from deskd.core.presence import is_busy
from deskd.core.tasks import ACTIONABLE, OPEN, TaskView, is_overdue, sort_key
from deskd.core.timeparse import iso_utc, local_text
from deskd.core.values import priority_name
from deskd.store import tasks as check_rows
from deskd.store import tasks as task_rows
from deskd.store.query import same_fields

if TYPE_CHECKING:
    from deskd.core.records import Snapshot
    from deskd.store.dialect import Connection
    from deskd.store.records.work import Task, TaskCheck


def idle_wake_counts(conn: Connection, rows: Iterable[Task]) -> dict[int, int]:
    """Per task: idle-task wakes that ran and listed it since (at or after) its last update."""
    updated: dict[int, int] = {}
    by_role: dict[str, int] = {}
    for r in rows:
        if r.status in ACTIONABLE:
            updated[r.id] = r.updated_at
            by_role[r.role] = min(by_role.get(r.role, r.updated_at), r.updated_at)
    counts = dict.fromkeys(updated, 0)
    if not by_role:
        return counts
    for wakes in task_rows.idle_wakes_since(conn, by_role).values():
        for wake in wakes:
            for task_id in json.loads(wake.task_ids):
                # At or after: a wake launched in the same millisecond as the update (a
                # pinned clock, a tick right after `task add`) was given the task as it is.
                if task_id in updated and int(wake.launched_at) >= updated[task_id]:
                    counts[task_id] += 1
    return counts


_DERIVED = ("idle_wakes", "stalled", "check_failed")
"""What a task's view counts from the ledger; the rest are its row's fields of the same name."""


def _stalled(r: Task, *, wakes: int, stall_after: int) -> bool:
    return r.status in ACTIONABLE and wakes >= stall_after


def _view(
    r: Task, *, wakes: int, stall_after: int, check: TaskCheck | None, desk: Desk
) -> TaskView:
    failed = check is not None and check.state == "idle" and check.outcome == "failed"
    return TaskView(
        idle_wakes=wakes,
        # A task its check reopened `reopen_after` times waits for a person, like a stall.
        stalled=_stalled(r, wakes=wakes, stall_after=stall_after)
        or check_escalated(r, check, reopen_after(desk, r.role)),
        check_failed=(check.output or "") if failed and check is not None else None,
        **same_fields(TaskView._fields, r, but=_DERIVED),
    )


def reopen_after(desk: Desk, role: str) -> int:
    """Failed checks of one of ``role``'s tasks before a person is paged (desk file)."""
    config = desk.roles.get(role)
    return (config.reopen_after if config else None) or desk.section.reopen_after


def check_escalated(r: Task, check: TaskCheck | None, limit: int) -> bool:
    """Reopened by its check's ``limit``-th (or later) failure, and unchanged since."""
    return (
        check is not None
        and check.state == "idle"
        and check.outcome == "failed"
        and check.failures >= limit
        and r.updated_at <= (check.finished_at or 0)
    )


def load_task_views(
    conn: Connection, desk: Desk, *, now: int
) -> tuple[tuple[TaskView, ...], dict[int, str], frozenset[int]]:
    """(open tasks with ``stalled`` derived, every task's assignee, done task ids).

    "Every task" that matters to a wake: the open ones and those a live task wake names, so
    the cost follows live rows, not the history of finished tasks. A task said done whose
    check has not passed yet wakes no one: the tick runs the check first.
    """
    rows = task_rows.open_tasks(conn)
    checks = {c.task_id: c for c in check_rows.checks_of(conn, [r.id for r in rows])}
    counts = idle_wake_counts(conn, rows)
    stall_after = desk.section.stall_after
    views = tuple(
        _view(r, wakes=counts.get(r.id, 0), stall_after=stall_after, check=c, desk=desk)
        for r in rows
        if (c := checks.get(r.id)) is None or c.state != "due"
    )
    roles = {v.id: v.role for v in views}
    named = task_rows.live_task_attempt_task_ids(conn) - set(roles)
    done: set[int] = set()
    for r in task_rows.tasks_by_ids(conn, sorted(named)):
        roles[int(r.id)] = str(r.role)
        if r.status == "done":
            done.add(int(r.id))
    return views, roles, frozenset(done)


class _TaskShown(TypedDict):
    id: int
    title: str
    status: str
    priority: str
    due_at: str | None
    overdue: bool
    blocked_on: str | None
    stalled: bool
    idle_wakes: int


class TaskJSON(_TaskShown):
    """One task as `deskd task list --json` prints it."""

    role: str
    detail: str
    due_local: str | None
    created_by: str
    created_at: str | None
    updated_at: str | None
    closed_at: str | None
    check: CheckJSON | None


class CheckJSON(TypedDict):
    """A task's postcondition (``--done-when``) and its last run."""

    spec: str
    state: str
    outcome: str | None
    failures: int
    errors: int
    output: str | None
    retry_at: str | None


class TaskSource(_TaskShown):
    """An open task in `deskd wake sources`, and what it can wake (None: nothing now)."""

    wakes: str | None


def task_json(
    r: Task,
    *,
    now: int,
    tz: str,
    wakes: int,
    stall_after: int,
    check: TaskCheck | None = None,
    reopen_after: int = 0,
) -> TaskJSON:
    """One task as `deskd task list --json` prints it."""
    return {
        "id": r.id,
        "role": r.role,
        "title": r.title,
        "detail": r.detail,
        "status": r.status,
        "priority": priority_name(int(r.priority)),
        "due_at": iso_utc(r.due_at),
        "due_local": local_text(r.due_at, tz) if r.due_at is not None else None,
        "overdue": r.status in OPEN and is_overdue(r.due_at, now=now),
        "blocked_on": r.blocked_on,
        "stalled": _stalled(r, wakes=wakes, stall_after=stall_after)
        or check_escalated(r, check, reopen_after),
        "idle_wakes": wakes,
        "created_by": r.created_by,
        "created_at": iso_utc(r.created_at),
        "updated_at": iso_utc(r.updated_at),
        "closed_at": iso_utc(r.closed_at),
        "check": None
        if check is None
        else {
            "spec": check.spec,
            "state": check.state,
            "outcome": check.outcome,
            "failures": check.failures,
            "errors": check.errors,
            "output": check.output,
            "retry_at": iso_utc(check.retry_at),
        },
    }


def sorted_rows(rows: Sequence[Task], *, now: int) -> list[Task]:
    """Open tasks first, each group sorted by the task rules (overdue, urgent, soonest due)."""
    return sorted(rows, key=lambda r: (r.status not in OPEN, sort_key(r, now=now)))


def _tasks_of(snapshot: Snapshot, role: str, *, now: int) -> list[TaskView]:
    """``role``'s open tasks, sorted by the task rules."""
    return sorted((t for t in snapshot.tasks if t.role == role), key=lambda t: sort_key(t, now=now))


def explain_tasks(snapshot: Snapshot, role: str, *, now: int, tz: str) -> list[str]:
    """`deskd wake explain --role R`: what R's tasks demand now, and why not when they don't."""
    mine = _tasks_of(snapshot, role, now=now)
    if not mine:
        return ["tasks: none open — no task demand"]
    view = snapshot.role(role)
    busy = view is not None and is_busy(view.presence)
    lines = [f"tasks: {len(mine)} open"]
    for t in mine:
        head = f"  task #{t.id} [{priority_name(t.priority)}, {t.status}] {t.title}"
        if t.wakes_urgently:
            why = "urgent and pending: wakes the role whatever its presence (urgent_task)"
        elif t.status == "blocked":
            why = f"blocked on {t.blocked_on}: waits for it, wakes no one"
        elif t.stalled:
            why = (
                f"stalled: woken {t.idle_wakes} times without a change since its last update; "
                f"no more wakes until someone updates it (`deskd task update {t.id} --note …`)"
            )
        elif busy:
            why = "actionable, but the role is busy: ordinary work waits until it is idle"
        else:
            why = f"actionable: wakes the idle role (idle_task; {t.idle_wakes} wakes so far)"
        due = ""
        if t.due_at is not None:
            flag = " — overdue" if is_overdue(t.due_at, now=now) else ""
            due = f" (due {local_text(t.due_at, tz)}{flag}; a due date never wakes anyone)"
        lines.append(f"{head}{due}: {why}")
    return lines


def task_sources(snapshot: Snapshot, role: str, *, now: int) -> list[TaskSource]:
    """`deskd wake sources --role R` "tasks": each open task and whether it can wake R."""
    out: list[TaskSource] = []
    for t in _tasks_of(snapshot, role, now=now):
        if t.wakes_urgently:
            wakes = "urgent_task"
        elif t.status in ACTIONABLE and not t.stalled:
            wakes = "idle_task"
        else:
            wakes = None
        out.append(
            {
                "id": t.id,
                "title": t.title,
                "status": t.status,
                "priority": priority_name(t.priority),
                "due_at": iso_utc(t.due_at),
                "overdue": is_overdue(t.due_at, now=now),
                "blocked_on": t.blocked_on,
                "stalled": t.stalled,
                "idle_wakes": t.idle_wakes,
                "wakes": wakes,
            }
        )
    return out
