"""Tasks: add, change (status, dependency, priority, due date, assignee, notes), list.

Every change goes through the one transition table (core/tasks.py) and is written with its
history row (``task_notes``) in one transaction. Who may change a task: its assignee, its
creator, or the operator (a person at the shell, without ``DESKD_ROLE``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, NamedTuple, TypedDict

from deskd.core.tasks import CLOSED, Change, check_party, check_status, next_state
from deskd.core.timeparse import iso_utc, parse_duration, parse_instant
from deskd.core.values import priority_name, priority_rank
from deskd.errors import InvalidValue, NothingToChange, TaskChanged, UnknownTask
from deskd.routing.store import mark_task_routed
from deskd.service.desk.context import DeskContext
from deskd.service.desk.identity import acting_role, known_role
from deskd.service.desk.inbox import validate_text
from deskd.service.work.task_views import idle_wake_counts, sorted_rows, task_json
from deskd.store import tasks as task_rows
from deskd.store.records import JSON, shown

if TYPE_CHECKING:
    from deskd.core.tasks import Task

NO_DUE = ("none", "")


class TaskChange(TypedDict, total=False):
    """What one update changed: only the fields that did (a task note's ``change``)."""

    status: str
    blocked_on: str | None
    role: str
    priority: str
    due_at: str | None
    check: str


def actor(ctx: DeskContext, by: str | None) -> str:
    """Who is changing a task: the agent's own role, a role the operator names, or the
    operator itself when it names none."""
    if ctx.settings.role or by:
        return acting_role(ctx, "--by", by)
    return ctx.actor


def due_ms(ctx: DeskContext, due: str | None) -> int | None:
    if due is None or due.strip().lower() in NO_DUE:
        return None
    return parse_instant(due, tz=ctx.tz, what="--due")


def add_task(
    ctx: DeskContext,
    *,
    title: str,
    role: str,
    priority: str = "normal",
    due: str | None = None,
    detail: str = "",
    by: str | None = None,
    routed: tuple[str, str] | None = None,
    done_when: str | None = None,
    check_timeout: str | None = None,
) -> JSON:
    """Assign a task; ``routed`` is (capability, why) when capability routing chose ``role``;
    ``done_when`` its postcondition (core/tasks.py), run with ``check_timeout``."""
    who = actor(ctx, by)
    known_role(ctx, role)
    validate_text(title, detail)
    rank = priority_rank(priority)
    due_at = due_ms(ctx, due)
    timeout_s = check_timeout_s(ctx, done_when, check_timeout)
    with ctx.write() as conn:
        task_id = task_rows.insert_task(
            conn,
            role=role,
            title=title.strip(),
            detail=detail,
            priority=rank,
            due_at=due_at,
            created_by=who,
            now=ctx.now,
        )
        change = {"status": "pending", "role": role, "priority": priority}
        if routed is not None:
            mark_task_routed(conn, task_id, capability=routed[0], why=routed[1])
            change["routed"] = routed[1]
        if done_when is not None:
            task_rows.insert_check(
                conn, task_id=task_id, spec=done_when.strip(), timeout_s=timeout_s
            )
            change["check"] = done_when.strip()
        task_rows.add_task_note(conn, task_id=task_id, at=ctx.now, by=who, change=change, note="")
        added = {"title": title, "priority": priority, "due_at": iso_utc(due_at)}
        ctx.event(conn, "task.added", f"task:{task_id}", role=role, actor=who, detail=added)
    out: JSON = {"id": task_id, "role": role, "status": "pending", "priority": priority}
    if routed is not None:
        out["routed"] = routed[1]
    if done_when is not None:
        out["check"] = done_when.strip()
    return out


def check_timeout_s(ctx: DeskContext, done_when: str | None, timeout: str | None) -> int:
    """``--check-timeout`` in seconds, after ``--done-when`` is checked; refused without one."""
    from deskd.core.tasks import DEFAULT_TIMEOUT_S, parse_check

    if done_when is None:
        if timeout is not None:
            raise InvalidValue("--check-timeout", timeout, "only a task with --done-when has one")
        return 0
    parse_check(done_when, ctx.desk.section.probe_allowlist)
    seconds = (
        DEFAULT_TIMEOUT_S if timeout is None else parse_duration(timeout, what="--check-timeout")
    )
    if seconds < 1:
        raise InvalidValue("--check-timeout", timeout, "a duration of at least 1s, like 5m")
    return seconds


class TaskUpdate(NamedTuple):
    """What ``task update`` asked to change (None: leave as is)."""

    status: str | None = None
    blocked_on: str | None = None
    priority: str | None = None
    due: str | None = None
    role: str | None = None
    note: str | None = None


def update_task(ctx: DeskContext, task_id: int, update: TaskUpdate, *, by: str | None) -> JSON:
    """Apply one change; refused (changing nothing) when the rules say no. Answers the task
    after the change, what ``changed`` and the ``note``."""
    who = actor(ctx, by)
    if update.status is not None:
        check_status(update.status)
    rank = priority_rank(update.priority) if update.priority is not None else None
    due_at = due_ms(ctx, update.due) if update.due is not None else None
    if update.role is not None:
        known_role(ctx, update.role)
    note = (update.note or "").strip()
    if update.note is not None and not note:
        raise InvalidValue("--note", update.note, "say what happened")
    with ctx.write() as conn:
        row = task_rows.get_task(conn, task_id)
        if row is None:
            raise UnknownTask(task_id)
        check_party(row, by=who)
        new = next_state(
            row, Change(status=update.status, blocked_on=update.blocked_on, role=update.role)
        )
        # A task with a postcondition is done when its check passes, not when it is said to
        # be: the claim stays open (in progress) and the next tick runs the check.
        claimed = new.status == "done" and task_rows.claim_done(conn, task_id, by=who, now=ctx.now)
        if claimed:
            new = new._replace(status="in_progress")
        priority = int(row.priority) if rank is None else rank
        due = row.due_at if update.due is None else due_at
        change = _diff(row, new, priority=priority, due_at=due)
        if claimed:
            change["check"] = "due"
        if not change and not note:
            raise NothingToChange(task_id)
        if not task_rows.update_task(
            conn,
            task_id,
            role=new.role,
            status=new.status,
            priority=priority,
            blocked_on=new.blocked_on,
            due_at=due,
            now=ctx.now,
            expect_updated_at=int(row.updated_at),
        ):
            raise TaskChanged(task_id)
        task_rows.add_task_note(conn, task_id=task_id, at=ctx.now, by=who, change=change, note=note)
        ctx.event(
            conn,
            "task.updated",
            f"task:{task_id}",
            role=new.role,
            actor=who,
            detail={**change, "note": note} if note else change,
        )
    return {
        "id": task_id,
        "role": new.role,
        "status": new.status,
        "priority": priority_name(priority),
        "blocked_on": new.blocked_on,
        "due_at": iso_utc(due),
        "changed": change,
        "note": note or None,
    }


def _diff(row: Task, new: Task, *, priority: int, due_at: int | None) -> TaskChange:
    change: TaskChange = {}
    if new.status != row.status:
        change["status"] = new.status
    if new.blocked_on != row.blocked_on:
        change["blocked_on"] = new.blocked_on
    if new.role != row.role:
        change["role"] = new.role
    if priority != row.priority:
        change["priority"] = priority_name(priority)
    if due_at != row.due_at:
        change["due_at"] = iso_utc(due_at)
    return change


def list_tasks(
    ctx: DeskContext,
    *,
    role: str | None,
    status: str | None,
    include_closed: bool,
    limit: int = 500,
) -> list[JSON]:
    """Open tasks (or every task with ``include_closed``), sorted by the task rules."""
    if role is not None:
        ctx.desk.role(role)
    if status is not None:
        check_status(status)
    open_only = not include_closed and status not in CLOSED
    rows = task_rows.list_tasks(ctx.conn, role=role, open_only=open_only, limit=limit)
    if status is not None:
        rows = [r for r in rows if r.status == status]
    counts = idle_wake_counts(ctx.conn, rows)
    checks = {c.task_id: c for c in task_rows.checks_of(ctx.conn, [r.id for r in rows])}
    return [
        task_json(
            r,
            now=ctx.now,
            tz=ctx.tz,
            wakes=counts.get(int(r.id), 0),
            check=checks.get(r.id),
            desk=ctx.desk,
        )
        for r in sorted_rows(rows, now=ctx.now)
    ]


def task_history(ctx: DeskContext, task_id: int) -> list[JSON]:
    """``task history``: each change and note on the task, oldest first."""
    if task_rows.get_task(ctx.conn, task_id) is None:
        raise UnknownTask(task_id)
    return [
        shown(n, "at by", iso="at") | {"change": json.loads(n.change or "{}"), "note": n.note}
        for n in task_rows.task_notes(ctx.conn, task_id)
    ]
