"""The tasks part of the planner's snapshot, and the task rows as people read them.

A stall is derived here at read time, never stored: a task is stalled once ``stall_after``
idle-task wakes that listed it ran (store/tasks.py ``idle_wakes_since`` says which count)
after its last update. Any update (a note, a status, a reassignment) moves ``updated_at``
and so revives it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from deskd.config.desk import Desk
from deskd.core.sessions import is_busy
from deskd.core.tasks import ACTIONABLE, OPEN, Task, is_overdue, sort_key
from deskd.core.timeparse import iso_utc, local_text
from deskd.core.values import priority_name
from deskd.store import tasks as task_rows
from deskd.store.records import JSON, shown

if TYPE_CHECKING:
    from deskd.core.records import Snapshot
    from deskd.store.dialect import Connection
    from deskd.store.records.work import TaskCheck


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


def _view(r: Task, *, wakes: int, check: TaskCheck | None, desk: Desk) -> Task:
    """``r`` with what the ledger and its check say: idle wakes, stalled, a failed check."""
    failed = check is not None and check.state == "idle" and check.outcome == "failed"
    return r._replace(
        idle_wakes=wakes,
        # A task its check reopened `reopen_after` times waits for a person, like a stall.
        stalled=(r.status in ACTIONABLE and wakes >= desk.section.stall_after)
        or check_escalated(r, check, reopen_after(desk, r.role)),
        check_failed=(check.output or "") if failed and check is not None else None,
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
) -> tuple[tuple[Task, ...], dict[int, str], frozenset[int]]:
    """(open tasks with ``stalled`` derived, every task's assignee, done task ids).

    "Every task" that matters to a wake: the open ones and those a live task wake names, so
    the cost follows live rows, not the history of finished tasks. A task said done whose
    check has not passed yet wakes no one: the tick runs the check first.
    """
    rows = task_rows.open_tasks(conn)
    checks = {c.task_id: c for c in task_rows.checks_of(conn, [r.id for r in rows])}
    counts = idle_wake_counts(conn, rows)
    views = tuple(
        _view(r, wakes=counts.get(r.id, 0), check=c, desk=desk)
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


def task_json(
    r: Task, *, now: int, tz: str, wakes: int, check: TaskCheck | None, desk: Desk
) -> JSON:
    """One task as `deskd task list --json` prints it."""
    v = _view(r, wakes=wakes, check=check, desk=desk)
    return {
        **shown(r, "id role title detail status"),
        "priority": priority_name(int(r.priority)),
        "due_at": iso_utc(r.due_at),
        "due_local": local_text(r.due_at, tz) if r.due_at is not None else None,
        "overdue": r.status in OPEN and is_overdue(r.due_at, now=now),
        "blocked_on": r.blocked_on,
        **shown(v, "stalled idle_wakes"),
        **shown(
            r, "created_by created_at updated_at closed_at", iso="created_at updated_at closed_at"
        ),
        "check": None
        if check is None
        else shown(check, "spec state outcome failures errors output retry_at", iso="retry_at"),
    }


def sorted_rows(rows: Sequence[Task], *, now: int) -> list[Task]:
    """Open tasks first, each group sorted by the task rules (overdue, urgent, soonest due)."""
    return sorted(rows, key=lambda r: (r.status not in OPEN, sort_key(r, now=now)))


def _tasks_of(snapshot: Snapshot, role: str, *, now: int) -> list[Task]:
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


def task_sources(snapshot: Snapshot, role: str, *, now: int) -> list[JSON]:
    """`deskd wake sources --role R` "tasks": each open task and whether it can wake R."""
    out: list[JSON] = []
    for t in _tasks_of(snapshot, role, now=now):
        if t.wakes_urgently:
            wakes = "urgent_task"
        elif t.status in ACTIONABLE and not t.stalled:
            wakes = "idle_task"
        else:
            wakes = None
        out.append(
            {
                **shown(t, "id title status"),
                "priority": priority_name(t.priority),
                "due_at": iso_utc(t.due_at),
                "overdue": is_overdue(t.due_at, now=now),
                **shown(t, "blocked_on stalled idle_wakes"),
                "wakes": wakes,
            }
        )
    return out
