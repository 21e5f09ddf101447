"""Run the task checks that are due (a role said done): a tick step before the snapshot.

The run is claimed in the ledger first (``started_at``), the checks then run outside any
write transaction, all at once, each under its own timeout, and each verdict is written
after: passed closes the task; failed reopens it (``pending``), so the idle role is woken
with the check's output in its prompt, and from the ``reopen_after``-th failure on a person
is paged; a check that could not run stays due and is retried later, shown, never passed.
A tick that dies mid-run leaves the check due: the next one runs it again.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from deskd.core.tasks import (
    CheckRun,
    command_verdict,
    parse_check,
    probe_verdict,
    retry_after_s,
    trimmed,
)
from deskd.core.timeparse import iso_utc
from deskd.store import tasks as task_rows
from deskd.store.records import JSON

if TYPE_CHECKING:
    from deskd.adapters.process import Child, Ran
    from deskd.core.tasks import Task
    from deskd.service.desk.context import DeskContext
    from deskd.store.dialect import Connection
    from deskd.store.records.work import TaskCheck

PROBE_CHILD = ["-m", "deskd.adapters.probe_child"]
ACTOR = "deskd"
"""Who a check's verdict is recorded by in the task's history."""


def run_due_checks(ctx: DeskContext) -> list[JSON]:
    """Run every due check once; returns what each gave (`tick --json` ``checks``)."""
    due = task_rows.due_checks(ctx.conn, now=ctx.now)
    if not due:
        return []
    with ctx.write() as conn:
        started = [
            c
            for c in due
            if task_rows.start_run(conn, c.task_id, now=ctx.now, claimed_at=c.claimed_at or 0)
        ]
        tasks = {c.task_id: task_rows.get_task(conn, c.task_id) for c in started}
    from deskd.adapters.process import run_children

    plans = {c.task_id: _child(ctx, c, tasks[c.task_id]) for c in started}
    children = {i: p for i, p in plans.items() if not isinstance(p, CheckRun)}
    budget = max((c.timeout_s for c in children.values()), default=0) + 5
    ran = run_children(children, budget_s=budget)
    runs = {i: p if isinstance(p, CheckRun) else _verdict(p, ran[i]) for i, p in plans.items()}
    with ctx.write() as conn:
        out = [_record(conn, ctx, c, runs[c.task_id]) for c in started]
    return [o for o in out if o is not None]


def _child(ctx: DeskContext, check: TaskCheck, task: Task | None) -> Child | CheckRun:
    """What runs the check, or why it cannot run now."""
    from deskd.adapters.process import Child
    from deskd.errors import DeskdError
    from deskd.service.engine.launch_command import role_workdir, scrubbed
    from deskd.service.paging.channels import secret_names

    if task is None or task.status in ("done", "cancelled"):
        return CheckRun(None, f"the task is {task.status if task else 'gone'}")
    try:
        kind, argv = parse_check(check.spec, ctx.desk.section.probe_allowlist)
    except DeskdError as exc:  # its module left probe_allowlist since the task was added
        return CheckRun(None, exc.message)
    if kind == "probe":
        probe = [sys.executable, *PROBE_CHILD, argv[0]]
        return Child(probe, ctx.settings.home, check.timeout_s)
    try:
        folder = role_workdir(ctx, task.role)
    except DeskdError as exc:  # its workdir is gone, its worktree cannot be made …
        return CheckRun(None, exc.message)
    env = scrubbed(os.environ, secret_names(ctx.settings, ctx.desk))
    return Child(argv, folder, check.timeout_s, {**env, "PWD": str(folder)})


def _verdict(child: Child, ran: Ran) -> CheckRun:
    if child.argv[1:3] != PROBE_CHILD:
        return command_verdict(ran.exit_code, ran.out + ran.err, ran.error)
    if ran.error is not None:
        return CheckRun(None, ran.error)
    from deskd.adapters.process import probe_result

    probe = probe_result(ran.exit_code or 0, ran.out, ran.err)
    return probe_verdict(probe.value, probe.error)


def _record(conn: Connection, ctx: DeskContext, check: TaskCheck, run: CheckRun) -> JSON | None:
    """Write one verdict (compare-and-set on this run's start mark) and what it does to the task."""
    output = trimmed(run.output)
    failures, errors = check.failures, check.errors
    task = task_rows.get_task(conn, check.task_id)
    live = task is not None and task.status not in ("done", "cancelled")
    retry_at: int | None = None
    if run.passed is None:
        errors += 1
        outcome, state = "error", "due" if live else "idle"
        retry_at = ctx.now + retry_after_s(errors) * 1000
    else:
        failures += 0 if run.passed else 1
        outcome, state = ("passed", "passed") if run.passed else ("failed", "idle")
    if not task_rows.finish_run(
        conn,
        check.task_id,
        state=state,
        outcome=outcome,
        output=output,
        failures=failures,
        errors=errors,
        retry_at=retry_at,
        now=ctx.now,
        started_at=ctx.now,
    ):
        return None
    if live and task is not None and run.passed is not None:
        _settle_task(conn, ctx, task, passed=run.passed, output=output, failures=failures)
    ctx.event(
        conn,
        f"task.check_{outcome}",
        f"task:{check.task_id}",
        role=task.role if task else None,
        actor=ACTOR,
        detail={"check": check.spec, "output": output[:300], "failures": failures},
    )
    return {"task_id": check.task_id, "outcome": outcome, "output": output, "failures": failures}


def _settle_task(
    conn: Connection, ctx: DeskContext, task: Task, *, passed: bool, output: str, failures: int
) -> None:
    """Close the task (passed) or reopen it (failed), with its history row; page a person
    about a task whose check has failed ``reopen_after`` times."""
    status = "done" if passed else "pending"
    task_rows.update_task(
        conn,
        task.id,
        role=task.role,
        status=status,
        priority=task.priority,
        blocked_on=None,
        due_at=task.due_at,
        now=ctx.now,
        expect_updated_at=task.updated_at,
    )
    change = {"status": status, "check": "passed" if passed else "failed"}
    task_rows.add_task_note(
        conn, task_id=task.id, at=ctx.now, by=ACTOR, change=change, note="" if passed else output
    )
    from deskd.service.work.task_views import reopen_after

    if passed or failures < reopen_after(ctx.desk, task.role):
        return
    from deskd.service.engine.questions import insert_help

    insert_help(
        conn,
        ctx,
        role=task.role,
        title=f"task {task.id} failed its check {failures} times: {task.title}",
        body=f"Reopened at {iso_utc(ctx.now)}; it wakes no one until someone updates it. "
        f"Last output:\n{output}",
        actor=ACTOR,
    )
