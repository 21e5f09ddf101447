"""``deskd tick``: lock, read the clock once, plan purely, record the plan in one transaction.

Dry-run (the default) computes the same plan and writes nothing at all; execute mode
records it and hands launches to the executor (until the executor lands, launches stay
``planned``) and pages to the pager (until then, pages stay ``queued`` in the outbox).
"""

from __future__ import annotations

import secrets
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from deskd.adapters.locks import LockBusy, tick_lock_path, try_lock
from deskd.core.planner import plan as make_plan
from deskd.core.records import Plan
from deskd.core.timeparse import iso_utc
from deskd.core.values import priority_rank
from deskd.service.desk.context import DeskContext
from deskd.service.engine.dispatch import Dispatched, heal_launches, start_executor
from deskd.service.engine.hooks import fire_due_hooks
from deskd.service.engine.prompting import launch_prompt
from deskd.service.engine.snapshot import load_snapshot, policy_of, with_would_fire
from deskd.service.engine.ticklog import append_line
from deskd.service.paging.pager import deliver_pages
from deskd.service.paging.tickping import ping
from deskd.store import attempts as attempt_rows
from deskd.store.events import add_event
from deskd.store.meta import set_meta
from deskd.store.pages import insert_page, resolve_pages_for_key


@dataclass
class TickResult:
    now: int
    dry_run: bool
    plan: Plan | None = None
    skipped: str | None = None
    attempt_ids: dict[str, int] = field(default_factory=dict)
    page_ids: list[int] = field(default_factory=list)
    hooks_fired: list[dict[str, Any]] = field(default_factory=list)
    dispatched: list[Dispatched] = field(default_factory=list)
    restarted: list[int] = field(default_factory=list)
    restart_roles: dict[int, str] = field(default_factory=dict)
    died: list[int] = field(default_factory=list)
    pages_sent: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        p = self.plan
        out: dict[str, Any] = {
            "now": iso_utc(self.now),
            "dry_run": self.dry_run,
            "skipped": self.skipped,
            "hooks_fired": self.hooks_fired,
            "resolved": [],
            "attempts": [],
            "actions": [],
            "pages": [],
            "launched": [
                {"attempt_id": d.attempt_id, "role": d.role, "pid": d.pid} for d in self.dispatched
            ],
            "restarted": self.restarted,
            "died": self.died,
            "pages_sent": self.pages_sent,
        }
        if p is None:
            return out
        out["resolved"] = [
            {"attempt_id": c.attempt_id, "outcome": c.outcome, "reason": c.reason}
            for c in p.closures
        ]
        out["attempts"] = [
            {
                "attempt_id": self.attempt_ids.get(a.key),
                "key": a.key,
                "reason": a.kind,
                "role": a.role,
                "rung": a.rung,
                "level": a.level,
                "generation": a.generation,
                "detail": a.reason,
                "skipped": a.skipped,
                "due_at": iso_utc(a.due_at),
            }
            for a in p.attempts
        ]
        out["actions"] = [
            {
                "attempt_id": self.attempt_ids.get(x.keys[0]),
                "attempt_ids": [self.attempt_ids.get(k) for k in x.keys],
                "role": x.role,
                "rung": x.rung,
                "reasons": list(x.reasons),
                "session_id": x.session_id,
                "prompt": x.prompt,
            }
            for x in p.launches
        ]
        out["pages"] = [
            {"key": pg.key, "role": pg.role, "title": pg.title, "follow_up": pg.follow_up}
            for pg in p.pages
        ]
        out["notes"] = [{"role": n.role, "key": n.key, "text": n.text} for n in p.notes]
        return out


def run_tick(ctx: DeskContext, *, execute: bool, wait: bool = False) -> TickResult:
    """One tick. Overlapping ticks: the second returns at once with ``skipped`` set.

    In execute mode the recorded launches are handed to detached executors once the plan's
    transaction has committed; ``wait`` waits for them (tests and one-shot use).
    """
    result = TickResult(now=ctx.now, dry_run=not execute)
    ping(ctx, "start")
    try:
        with try_lock(tick_lock_path(ctx.settings.run_path)):
            _tick(ctx, result, execute=execute)
            if execute:
                _dispatch(ctx, result)
                result.pages_sent = deliver_pages(ctx)
    except LockBusy:
        result.skipped = "another tick holds run/tick.lock"
    except Exception as exc:
        ping(ctx, "fail", f"{type(exc).__name__}: {exc}")
        result.error = f"{type(exc).__name__}: {exc}"
        log_tick(ctx, result)
        raise
    ping(ctx, "success")
    log_tick(ctx, result)
    if wait:
        for launch in result.dispatched:
            if launch.proc is not None:
                launch.proc.wait()
    return result


def _dispatch(ctx: DeskContext, result: TickResult) -> None:
    plan = result.plan
    ids = [result.attempt_ids[x.keys[0]] for x in plan.launches] if plan else []
    roles = {result.attempt_ids[x.keys[0]]: x.role for x in plan.launches} if plan else {}
    roles.update(result.restart_roles)
    for attempt_id in [*ids, *result.restarted]:
        result.dispatched.append(start_executor(ctx, attempt_id, roles[attempt_id]))


def _tick(ctx: DeskContext, result: TickResult, *, execute: bool) -> None:
    conn = ctx.conn
    if execute:
        result.restarted, result.died, result.restart_roles = heal_launches(ctx)
    fired = fire_due_hooks(ctx, execute=execute)
    result.hooks_fired = [f.to_json() for f in fired]
    if execute:
        # Time-based meeting transitions (idle pause, late attendance) run on the tick
        # (lesson 25); a dry run's snapshot applies the same sweep in memory.
        from deskd.service.meetings.lifecycle import sweep_meetings

        sweep_meetings(ctx)
    snapshot = load_snapshot(conn, ctx.desk, now=ctx.now)
    if not execute:
        snapshot = with_would_fire(snapshot, fired, now=ctx.now)
    plan = make_plan(snapshot, now=ctx.now, policy=policy_of(ctx.desk))
    result.plan = plan
    if not execute:
        return
    with ctx.write() as wconn:
        result.attempt_ids, result.page_ids = record_plan(wconn, plan, now=ctx.now)
        set_meta(wconn, "last_tick_at", str(ctx.now))


def record_plan(
    conn: sqlite3.Connection, plan: Plan, *, now: int
) -> tuple[dict[str, int], list[int]]:
    """Write a plan: closures by compare-and-set, new attempts, launches planned, pages queued."""
    for c in plan.closures:
        row = attempt_rows.get_attempt(conn, c.attempt_id)
        if not attempt_rows.close_attempt(
            conn, c.attempt_id, outcome=c.outcome, reason=c.reason, now=now
        ):
            continue
        attempt_rows.skip_planned_launch(
            conn, c.attempt_id, reason=f"not launched: attempt {c.outcome}", now=now
        )
        if row is not None and c.outcome != "superseded":
            resolve_pages_for_key(conn, row.key, now=now)
    ids: dict[str, int] = {}
    for a in plan.attempts:
        ids[a.key] = attempt_rows.insert_attempt(
            conn,
            key=a.key,
            kind=a.kind,
            role=a.role,
            generation=a.generation,
            rung=a.rung,
            level=a.level,
            reason=a.reason,
            ref=a.ref,
            item_ids=a.item_ids,
            task_ids=a.task_ids,
            attempted_at=now,
            due_at=a.due_at,
            supersedes=a.supersedes,
            recycles=a.recycles,
            skipped=a.skipped,
        )
    for launch in plan.launches:
        primary = ids[launch.keys[0]]
        attempt_rows.plan_launch(
            conn,
            primary,
            token=secrets.token_urlsafe(18),
            prompt=launch_prompt(
                conn, role=launch.role, reasons=launch.reasons, default=launch.prompt, now=now
            ),
            session_id=launch.session_id,
            now=now,
        )
        for key in launch.keys[1:]:
            attempt_rows.ride_along(conn, ids[key], primary_id=primary, now=now)
    page_ids = []
    # A page is as urgent as its demand: silences and quiet hours hold only non-urgent pages.
    urgent_keys = {d.key for d in plan.demands if d.urgent}
    for page in plan.pages:
        kind = "notice" if page.notice_key else ("follow_up" if page.follow_up else "page")
        urgent = page.follow_up or (kind == "page" and page.key in urgent_keys)
        page_ids.append(
            insert_page(
                conn,
                attempt_id=ids[page.key],
                key=page.notice_key or page.key,
                role=page.role,
                kind=kind,
                priority=priority_rank("urgent") if urgent else priority_rank("high"),
                title=page.title,
                body=page.body,
                now=now,
            )
        )
    if not plan.empty:
        add_event(
            conn,
            at=now,
            kind="tick.recorded",
            detail={
                "closures": len(plan.closures),
                "attempts": len(plan.attempts),
                "launches": len(plan.launches),
                "pages": len(plan.pages),
            },
        )
    return ids, page_ids


def log_tick(ctx: DeskContext, result: TickResult) -> None:
    """Append the tick's line: when, which desk and database, dry/execute, what it did."""
    p = result.plan
    mode = "dry-run" if result.dry_run else "execute"
    if result.error:
        what = f"error: {result.error}"
    elif result.skipped:
        what = f"skipped: {result.skipped}"
    elif p is None:
        what = "no plan"
    else:
        what = (
            f"demands={len(p.demands)} closed={len(p.closures)} attempts={len(p.attempts)} "
            f"launches={len(p.launches)} pages={len(p.pages)} hooks={len(result.hooks_fired)}"
        )
    line = f"{iso_utc(result.now)} desk={ctx.settings.desk_path} db={ctx.settings.db_path} {mode} {what}"
    append_line(ctx.settings.log_path, line)
