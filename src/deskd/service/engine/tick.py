"""``deskd tick``: lock, read the clock once, plan purely, record the plan in one transaction.

Dry-run (the default) computes the same plan and writes nothing at all; execute mode records
it and hands launches to the executor (until it lands them, launches stay ``planned``) and
pages to the pager (until then, pages stay ``queued`` in the outbox).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from deskd.adapters.private import open_private, private_dir
from deskd.core.planner import plan as make_plan
from deskd.core.records import Plan
from deskd.core.timeparse import iso_utc
from deskd.service.desk.context import DeskContext
from deskd.service.engine.checks import run_due_checks
from deskd.service.engine.hook_fire import FiredJson, fire_due_hooks
from deskd.service.engine.record import previewed, record_plan
from deskd.service.engine.snapshot import load_snapshot, policy_of, with_would_fire
from deskd.service.paging.tickping import ping
from deskd.store import attempts as attempt_rows
from deskd.store import pages as page_rows
from deskd.store.db import read_transaction
from deskd.store.events import set_meta
from deskd.store.hosts import record_tick

if TYPE_CHECKING:
    from pathlib import Path

    from deskd.service.engine.dispatch import Dispatched, Healed
    from deskd.service.engine.stuck import StuckJson
    from deskd.service.paging.pager import PageReport


class TickResult(NamedTuple):
    """What one tick did, built step by step (each step returns the next record)."""

    now: int
    dry_run: bool
    plan: Plan | None = None
    skipped: str | None = None
    attempt_ids: Mapping[str, int] = {}
    page_ids: tuple[int, ...] = ()
    hooks_fired: tuple[FiredJson, ...] = ()
    checks: tuple[dict[str, Any], ...] = ()
    stuck: tuple[StuckJson, ...] = ()
    healed: Healed | None = None
    """What healing did; None when nothing was healed: a dry run, or no launch was planned
    or running."""
    dispatched: tuple[Dispatched, ...] = ()
    pages_sent: tuple[PageReport, ...] = ()
    error: str | None = None
    replies: Mapping[str, Any] | None = None
    """What the reply mailbox held (``DESKD_REPLY_IMAP_URL``); None when there is none."""

    def to_json(self) -> dict[str, Any]:
        """``tick --json`` (docs/contract.md): the plan's parts are empty, and ``notes``
        absent, when the tick was skipped."""
        p = self.plan
        out: dict[str, Any] = {
            "now": iso_utc(self.now),
            "dry_run": self.dry_run,
            "skipped": self.skipped,
            "hooks_fired": list(self.hooks_fired),
            "stuck": list(self.stuck),
            "checks": list(self.checks),
            "resolved": [],
            "attempts": [],
            "actions": [],
            "pages": [],
            "launched": [
                {"attempt_id": d.attempt_id, "role": d.role, "pid": d.pid} for d in self.dispatched
            ],
            "restarted": [r.attempt_id for r in self.healed.restarted] if self.healed else [],
            "died": list(self.healed.died) if self.healed else [],
            "pages_sent": list(self.pages_sent),
        }
        if self.replies is not None:
            out["replies"] = dict(self.replies)
        if p is None:
            return out
        out["resolved"] = [c._asdict() for c in p.closures]
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
        out["notes"] = [n._asdict() for n in p.notes]
        return out


def _no_ping(ctx: DeskContext, phase: str, reason: str = "") -> None:
    return None


def run_tick(ctx: DeskContext, *, execute: bool) -> TickResult:
    """One tick. Overlapping executing ticks: the second returns at once with ``skipped`` set.

    In execute mode the recorded launches are handed to detached executors once the plan's
    transaction has committed; ``result.dispatched`` holds them for a caller to wait on.
    """
    # Only an executing tick is the desk's heartbeat: a dry run does nothing, so it must not
    # tell the monitor (DESKD_TICK_PING_URL) that the desk is ticking.
    beat = ping if execute else _no_ping
    beat(ctx, "start")
    started = time.monotonic()
    try:
        # A dry run takes no tick lock: it records nothing and reads one committed point in
        # time, so it races no one; it prints its plan while an executing tick runs, and
        # skips loading filelock (a fifth of a dry tick's CPU, docs/performance.md).
        result = _locked_tick(ctx, started) if execute else _tick(ctx, execute=False)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        beat(ctx, "fail", error)
        log_tick(ctx, TickResult(now=ctx.now, dry_run=not execute, error=error))
        raise
    beat(ctx, "success")
    log_tick(ctx, result)
    return result


def _locked_tick(ctx: DeskContext, started: float) -> TickResult:
    """An executing tick under the tick lock; ``skipped`` when another tick holds it."""
    from deskd.adapters.locks import LockBusy
    from deskd.service.desk import locks

    try:
        with locks.hold(ctx, locks.TICK):
            result = _tick(ctx, execute=True)
            dispatched = _dispatch(ctx, result)
            result = result._replace(dispatched=dispatched, pages_sent=_deliver_pages(ctx))
            # How long the whole tick took (planning, launches handed out, pages sent), for
            # the metrics: a tick nearing its one-minute period is worth an alert.
            from deskd.store.metrics import TICK_MS_KEY

            took_ms = int((time.monotonic() - started) * 1000)
            with ctx.write(roles=()) as wconn:  # no role's rows: this host's own meta key
                set_meta(wconn, f"{TICK_MS_KEY}{ctx.settings.host_id}", str(took_ms))
            return result
    except LockBusy:
        result = TickResult(
            now=ctx.now, dry_run=False, skipped=f"another tick holds {locks.where(ctx, locks.TICK)}"
        )
        if ctx.settings.shared_database:
            # Another host is planning; this host still starts what was handed to it, and
            # again what it was handed that never started.
            with ctx.write(roles=()) as wconn:  # no role's rows: this host's own row
                record_tick(wconn, ctx.settings.host_id, now=ctx.now)
            if _launches_live(ctx):
                from deskd.service.engine.dispatch import Healed, restart_own_stale

                result = result._replace(healed=Healed(restarted=restart_own_stale(ctx)))
            result = result._replace(dispatched=_dispatch(ctx, result))
        return result


def _deliver_pages(ctx: DeskContext) -> tuple[PageReport, ...]:
    """The pager's run, when its own first two reads find a page to send or settle; else the
    pager is not imported (its channels, pydantic models and transports are about two thirds
    of a quiet executing tick's CPU)."""
    conn = ctx.conn
    if not (page_rows.due_pages(conn, now=ctx.now, limit=1) or page_rows.unsettled_pages(conn)):
        return ()
    from deskd.service.paging.pager import deliver_pages

    return tuple(deliver_pages(ctx))


def start_executor(ctx: DeskContext, attempt_id: int, role: str) -> Dispatched:
    """Start one launch's executor (dispatch.py), imported by an executing tick only: a dry
    run starts nothing and does not build dispatch's records or load its process helpers."""
    from deskd.service.engine.dispatch import start_executor as start

    return start(ctx, attempt_id, role)


def _launches_live(ctx: DeskContext) -> bool:
    """Whether any launch is planned (this tick's, another host's, a stale one) or running:
    when none is, healing and handing would find nothing, and the tick does not load dispatch
    (a twentieth of a quiet tick's CPU)."""
    conn = ctx.conn
    return bool(
        attempt_rows.running_launches(conn) or attempt_rows.stale_planned(conn, before=_ANY_TIME)
    )


_ANY_TIME = 2**62
"""``planned_at`` is Unix ms: every planned launch was planned before this."""


def _dispatch(ctx: DeskContext, result: TickResult) -> tuple[Dispatched, ...]:
    """Start an executor for each launch handed to this host (this tick's own, and those
    another host's tick planned for a role bound here), then each one healing planned again."""
    if not _launches_live(ctx):
        return ()
    from deskd.relay.start import ensure_relay
    from deskd.service.engine.dispatch import take_launches

    ensure_relay(ctx)  # on PostgreSQL, the agents' session hooks go through this host's relay
    restarted = result.healed.restarted if result.healed else ()
    return tuple(
        start_executor(ctx, launch.attempt_id, launch.role)
        for launch in [*take_launches(ctx), *restarted]
    )


def _tick(ctx: DeskContext, *, execute: bool) -> TickResult:
    conn = ctx.conn
    if execute:
        healed: Healed | None = None
        if _launches_live(ctx):
            from deskd.service.engine.dispatch import heal_launches

            healed = heal_launches(ctx)
        fired = fire_due_hooks(ctx, execute=True)
        stuck: tuple[StuckJson, ...] = ()
        if _launches_live(ctx):  # silent launches: nudged, or stopped and resumed below
            from deskd.service.engine.stuck import handle_stuck

            stuck = tuple(handle_stuck(ctx))
        checks = tuple(run_due_checks(ctx))  # before the snapshot: a reopened task wakes now
        # Time-based meeting transitions (idle pause, late attendance) run on the tick
        # (lesson 25); a dry run's snapshot applies the same sweep in memory.
        _sweep_meetings(ctx)
        from deskd.routing.service import route_held_work  # work held for a person

        route_held_work(ctx)
        replies = None
        if ctx.settings.reply_imap_url:  # before the plan: a snooze by email holds this tick
            from deskd.service.engine.replies import read_replies

            replies = read_replies(ctx)
        from deskd.store.questions import expired_questions

        if expired_questions(conn, now=ctx.now):  # "no answer" goes back; else not loaded
            from deskd.service.engine.questions import expire_questions

            expire_questions(ctx)
        snapshot = load_snapshot(conn, ctx.desk, now=ctx.now, host=ctx.settings.host_id)
    else:
        # One read transaction for the hooks and the snapshot: an executing tick that
        # commits in between (a dry run does not wait for its lock) cannot make a hook both
        # "would fire" and already fired.
        healed = replies = None
        checks, stuck = (), ()
        with read_transaction(conn):
            fired = fire_due_hooks(ctx, execute=False)
            snapshot = load_snapshot(conn, ctx.desk, now=ctx.now, host=ctx.settings.host_id)
        snapshot = with_would_fire(snapshot, fired, now=ctx.now)
    plan = make_plan(snapshot, now=ctx.now, policy=policy_of(ctx.desk))
    if not execute:  # the prompts a dry run shows are the ones an executing tick records
        plan = previewed(plan)
    planned = TickResult(
        now=ctx.now,
        dry_run=not execute,
        plan=plan,
        hooks_fired=tuple(f.to_json() for f in fired),
        checks=checks,
        stuck=stuck,
        healed=healed,
        replies=replies,
    )
    if not execute:
        return planned
    # It waits only for the roles it writes for (the attempts it closes and adds, a launch
    # being one of those, and its pages): other agents' hooks and commands go on meanwhile.
    closing = {c.attempt_id for c in plan.closures}
    roles = {a.role for a in snapshot.attempts if a.id in closing}
    with ctx.write(roles | {a.role for a in plan.attempts} | {p.role for p in plan.pages}) as wconn:
        attempt_ids, page_ids = record_plan(wconn, plan, now=ctx.now)
        if plan.launches:
            from deskd.service.engine.dispatch import hand_launches

            hand_launches(ctx, wconn, {attempt_ids[x.keys[0]]: x.role for x in plan.launches})
        set_meta(wconn, "last_tick_at", str(ctx.now))
        record_tick(wconn, ctx.settings.host_id, now=ctx.now)
    return planned._replace(attempt_ids=attempt_ids, page_ids=tuple(page_ids))


def _sweep_meetings(ctx: DeskContext) -> None:
    """The meeting sweep, when a live meeting has one due: the sweep's module loads the
    meeting use cases and the inbox's writers, which a tick with nothing due does not use.
    ``sweep_meetings`` makes the same check first, inside its own transaction."""
    from deskd.core.meetings import due_sweep
    from deskd.service.meetings.facts import live_facts

    if all(due_sweep(f, now=ctx.now).empty for f in live_facts(ctx.conn)):
        return
    from deskd.service.meetings.lifecycle import sweep_meetings

    sweep_meetings(ctx)


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
    line = f"{iso_utc(result.now)} desk={ctx.settings.desk_path} db={ctx.settings.database_shown} {mode} {what}"
    append_line(ctx.settings.log_path, line)


TICK_LOG_BYTES = 1024 * 1024
TICK_LOGS_KEPT = 3


def append_line(folder: Path, line: str) -> None:
    """Append one line to ``folder/tick.log`` (every tick, even a quiet one: lesson 48),
    rotating it past ``TICK_LOG_BYTES``."""
    try:
        private_dir(folder)
        path = folder / "tick.log"
        if path.exists() and path.stat().st_size > TICK_LOG_BYTES:
            for n in range(TICK_LOGS_KEPT - 1, 0, -1):
                older = folder / f"tick.log.{n}"
                if older.exists():
                    older.replace(folder / f"tick.log.{n + 1}")
            path.replace(folder / "tick.log.1")
        with open_private(path, "a", encoding="utf-8") as fh:
            fh.write(line.rstrip("\n") + "\n")
    except OSError:
        # A full disk or a read-only log folder must not fail the tick itself.
        pass
