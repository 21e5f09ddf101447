"""The rollover by hand: ``deskd session rollover``.

It is the tick's own rollover step, now: the same snapshot and planner, restricted to
``rollover`` demand, recorded in the same ledger and launched by the same executor (so a
by-hand wind-down counts as a try like any other).
"""

from __future__ import annotations

from typing import TypedDict

from deskd.adapters.locks import LockBusy
from deskd.core.planner import plan as make_plan
from deskd.core.sessions import latest_boundary
from deskd.core.timeparse import iso_utc, local_text
from deskd.errors import TickBusy
from deskd.service.desk import locks
from deskd.service.desk.context import DeskContext
from deskd.service.engine.record import record_plan
from deskd.service.engine.snapshot import load_snapshot, policy_of, rollover_key
from deskd.store import handoffs as handoff_rows
from deskd.store.attempts import get_attempt
from deskd.store.records import JSON


class Rollover(TypedDict):
    """`session rollover --json`."""

    now: str | None
    boundary: str | None
    boundary_local: str
    dry_run: bool
    due: list[JSON]
    """Each session from before the boundary: what the planner would do, and (executed) did."""
    launched: list[int]
    pages: list[str]


def rollover(ctx: DeskContext, *, execute: bool) -> Rollover:
    """Wind down sessions from before the latest ``rollover_at``: dry (the default) shows
    what is due and would happen; ``execute`` records the wakes and waits for each launch."""
    boundary = latest_boundary(ctx.now, tz=ctx.tz, rollover_at=ctx.desk.section.rollover_at)
    if not execute:
        return _rollover_step(ctx, boundary=boundary, execute=False)
    try:
        with locks.hold(ctx, locks.TICK):
            return _rollover_step(ctx, boundary=boundary, execute=True)
    except LockBusy:
        raise TickBusy(locks.where(ctx, locks.TICK)) from None


def _outcome(ctx: DeskContext, attempt_id: int | None) -> str | None:
    """What the wind-down launch did, read back after it ran (None when none ran)."""
    if attempt_id is None:
        return None
    row = get_attempt(ctx.conn, attempt_id)
    if row is None:
        return None
    parts = [f"attempt {attempt_id}: launch {row.launch_status or 'not started'}"]
    parts.append("landed" if row.landed_at is not None else "did not land")
    detail = row.launch_detail or row.outcome_reason
    return ", ".join(parts) + (f" ({detail})" if detail else "")


def _rollover_step(ctx: DeskContext, *, boundary: int, execute: bool) -> Rollover:
    from deskd.service.engine.dispatch import start_executor

    snapshot = load_snapshot(ctx.conn, ctx.desk, now=ctx.now)
    only = snapshot._replace(
        items=(),
        tasks=(),
        meeting_wakes=(),
        help_requests=(),
        attempts=tuple(a for a in snapshot.attempts if a.kind == "rollover"),
    )
    plan = make_plan(only, now=ctx.now, policy=policy_of(ctx.desk))
    ids: dict[str, int] = {}
    if execute and not plan.empty:
        with ctx.write() as conn:
            ids, _pages = record_plan(conn, plan, now=ctx.now)
        for launch in plan.launches:
            started = start_executor(ctx, ids[launch.keys[0]], launch.role)
            if started.proc is not None:
                started.proc.wait()
    due: list[JSON] = []
    for r in snapshot.rollovers:
        key = rollover_key(r.session_key)
        session = handoff_rows.get_session(ctx.conn, int(r.session_key))
        due.append(
            {
                "role": r.role,
                "session": int(r.session_key),
                "native_id": session.native_id if session is not None else None,
                "started_at": iso_utc(r.started_at),
                "started_local": local_text(r.started_at, ctx.tz),
                "tries": r.tries,
                "key": key,
                "plan": [a.rung for a in plan.attempts if a.key == key],
                "notes": [n.text for n in plan.notes if n.key == key],
                "ended": session is not None and session.state == "ended",
                "outcome": _outcome(ctx, ids.get(key)) if execute else None,
            }
        )
    return {
        "now": iso_utc(ctx.now),
        "boundary": iso_utc(boundary),
        "boundary_local": local_text(boundary, ctx.tz),
        "dry_run": not execute,
        "due": due,
        "launched": [ids[x.keys[0]] for x in plan.launches] if execute else [],
        "pages": [p.title for p in plan.pages],
    }
