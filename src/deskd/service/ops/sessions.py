"""Session lifecycle by hand: ``deskd session rollover``, ``session handoff``, ``session list``.

The rollover by hand is the tick's own rollover step, now: the same snapshot and planner,
restricted to ``rollover`` demand, recorded in the same ledger and launched by the same
executor (so a by-hand wind-down counts as a try like any other).
"""

from __future__ import annotations

from typing import Any

from deskd.adapters.locks import LockBusy
from deskd.core.planner import plan as make_plan
from deskd.core.sessions import desk_day, latest_boundary
from deskd.core.timeparse import iso_utc, local_text
from deskd.errors import InvalidValue, TickBusy
from deskd.service.desk import locks
from deskd.service.desk.context import DeskContext
from deskd.service.desk.identity import acting_role
from deskd.service.engine.snapshot import load_snapshot, policy_of
from deskd.service.work.session_views import rollover_key
from deskd.store import handoffs as handoff_rows
from deskd.store.events import add_event
from deskd.store.sessions import current_session, sessions_of

MAX_HANDOFF = 8 * 1024
"""A hand-off is read by the next session in its wake prompt (capped at 32 KiB overall)."""


def handoff(ctx: DeskContext, *, role: str | None, note: str) -> dict[str, Any]:
    """Store the hand-off the role's next session starts from."""
    who = acting_role(ctx, "--role", role)
    text = note.strip()
    if not text:
        raise InvalidValue("--note", note, "say what is open and the first next step")
    if len(text) > MAX_HANDOFF:
        raise InvalidValue("--note", text[:40] + "…", f"at most {MAX_HANDOFF} characters")
    with ctx.write() as conn:
        live = current_session(conn, who)
        session = live.id if live is not None and live.state in ("working", "resting") else None
        by = ctx.settings.role or "operator"
        handoff_id = handoff_rows.insert_handoff(
            conn, role=who, session_id=session, note=text, by=by, now=ctx.now
        )
        add_event(
            conn,
            at=ctx.now,
            kind="session.handoff",
            role=who,
            actor=by,
            subject=f"session:{session}" if session else None,
            detail={"handoff_id": handoff_id},
        )
    return {"id": handoff_id, "role": who, "session": session, "created_at": iso_utc(ctx.now)}


def list_sessions(ctx: DeskContext, role: str, *, limit: int = 50) -> list[dict[str, Any]]:
    """The role's sessions, newest first: start, end, wakes served, cost, hand-off."""
    ctx.desk.role(role)
    rows = sessions_of(ctx.conn, role, limit=limit)
    natives = [str(r.native_id) for r in rows if r.native_id]
    totals = handoff_rows.session_wake_totals(ctx.conn, role, natives)
    notes: dict[int, str] = {}
    for h in handoff_rows.handoffs_of(ctx.conn, role, limit=limit):
        if h.session_id is not None:
            notes.setdefault(int(h.session_id), h.note)
    out = []
    for r in rows:
        wakes, cost = totals.get(str(r.native_id), (0, 0.0))
        out.append(
            {
                "id": r.id,
                "role": role,
                "native_id": r.native_id,
                "state": r.state,
                "started_at": iso_utc(r.started_at),
                "ended_at": iso_utc(r.ended_at),
                "end_reason": r.end_reason,
                "desk_day": desk_day(
                    r.started_at, tz=ctx.tz, rollover_at=ctx.desk.section.rollover_at
                ).isoformat(),
                "wakes": wakes,
                "cost_usd": round(cost, 4),
                "handoff": notes.get(r.id),
                "started_local": local_text(r.started_at, ctx.tz),
                "ended_local": local_text(r.ended_at, ctx.tz) if r.ended_at else None,
            }
        )
    return out


def rollover(ctx: DeskContext, *, execute: bool) -> dict[str, Any]:
    """Wind down sessions from before the latest ``rollover_at``: the tick's rollover step.

    Dry (the default) shows what is due and what would happen; ``execute`` records the
    wind-down wakes and runs them, waiting for each launch.
    """
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
    from deskd.store.attempts import get_attempt

    row = get_attempt(ctx.conn, attempt_id)
    if row is None:
        return None
    parts = [f"attempt {attempt_id}: launch {row.launch_status or 'not started'}"]
    parts.append("landed" if row.landed_at is not None else "did not land")
    detail = row.launch_detail or row.outcome_reason
    return ", ".join(parts) + (f" ({detail})" if detail else "")


def _rollover_step(ctx: DeskContext, *, boundary: int, execute: bool) -> dict[str, Any]:
    from deskd.service.engine.dispatch import start_executor
    from deskd.service.engine.tick import record_plan

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
    due = []
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
