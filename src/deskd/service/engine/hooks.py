"""Wake hooks: add, list, preview and cancel them; fire the due ones on each tick.

A fired hook enqueues an item for its owner (source ``system``, ref ``hook:<id>``, deduped by
hook), and the item is what wakes the role. Probes run in child processes outside any write
transaction; three consecutive errors disable a probe and tell its owner.

It runs past 400 lines because adding, previewing and firing share the spec handling and
the fire record; the probe itself runs in adapters/probe_child.py.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from deskd.core.schedule import (
    AtSpec,
    Spec,
    describe,
    upcoming,
    validate_at,
    validate_cron,
    validate_every,
    validate_timezone,
)
from deskd.core.timeparse import iso_utc, local_text, parse_duration, parse_instant
from deskd.core.values import SUPERVISOR, priority_name, priority_rank
from deskd.core.wakehooks import (
    PROBE_DEFAULT_EVERY_S,
    PROBE_ERRORS_TO_DISABLE,
    check_probe_target,
    decide_fire,
    probe_allowed,
    probe_items,
    probe_target,
    spec_from_json,
    spec_json,
    spec_text,
)
from deskd.errors import HookClosed, InvalidValue, NotHookOwner, UnknownHook
from deskd.service.desk.context import DeskContext
from deskd.service.desk.inbox import NewItem, insert, validate_text
from deskd.store import hooks as hook_rows
from deskd.store.events import add_event

if TYPE_CHECKING:
    from deskd.store.records.hooks import Hook

PROBE_RETRY_S = 60


@dataclass(frozen=True, slots=True, kw_only=True)
class HookRequest:
    owner: str
    title: str
    body: str = ""
    priority: str = "normal"
    at: str | None = None
    every: str | None = None
    cron: str | None = None
    tz: str | None = None
    probe: str | None = None
    until: str | None = None


def add_hook(ctx: DeskContext, req: HookRequest) -> dict[str, Any]:
    """Validate and register a hook; refuses an impossible or past schedule with the reason."""
    ctx.desk.role(req.owner)
    validate_text(req.title, req.body)
    rank = priority_rank(req.priority)
    kind, spec, target = _spec(ctx, req)
    until_at = parse_instant(req.until, tz=ctx.tz, what="--until") if req.until else None
    if until_at is not None and until_at <= ctx.now:
        raise InvalidValue("--until", req.until, "must be later than now")
    decision = decide_fire(spec, since=ctx.now, now=ctx.now, until_at=until_at)
    if decision.next_fire_at is None:
        raise InvalidValue("schedule", req.until, "it would never fire before --until")
    with ctx.write() as conn:
        hook_id = hook_rows.insert_hook(
            conn,
            owner=req.owner,
            kind=kind,
            spec=spec_json(spec, target=target),
            title=req.title,
            body=req.body,
            priority=rank,
            until_at=until_at,
            next_fire_at=decision.next_fire_at,
            now=ctx.now,
        )
        add_event(
            conn,
            at=ctx.now,
            kind="hook.added",
            role=req.owner,
            subject=f"hook:{hook_id}",
            detail={"kind": kind, "spec": describe(spec, tz=ctx.tz)},
        )
    return {"id": hook_id, "kind": kind, "next_fire_at": iso_utc(decision.next_fire_at)}


def _spec(ctx: DeskContext, req: HookRequest) -> tuple[str, Spec, str | None]:
    chosen = [
        n
        for n, v in (
            ("--at", req.at),
            ("--every", req.every),
            ("--cron", req.cron),
            ("--probe", req.probe),
        )
        if v
    ]
    if req.probe and req.every:
        chosen.remove("--every")
    if len(chosen) != 1:
        raise InvalidValue(
            "schedule",
            " ".join(chosen) or "none",
            "give exactly one of --at, --every, --cron, --probe",
        )
    if req.tz and not req.cron:
        raise InvalidValue("--tz", req.tz, "only cron hooks take a timezone")
    if req.at:
        return "at", validate_at(parse_instant(req.at, tz=ctx.tz, what="--at"), now=ctx.now), None
    if req.cron:
        return "cron", validate_cron(req.cron, tz=validate_timezone(req.tz or ctx.tz)), None
    if req.probe:
        target = check_probe_target(req.probe, ctx.desk.section.probe_allowlist)
        every = parse_duration(req.every, what="--every") if req.every else PROBE_DEFAULT_EVERY_S
        return "probe", validate_every(every, anchor=ctx.now), target
    assert req.every is not None
    return "every", validate_every(parse_duration(req.every, what="--every"), anchor=ctx.now), None


def hook_view(row: Hook) -> dict[str, Any]:
    return {
        "id": row.id,
        "owner": row.owner,
        "kind": row.kind,
        "spec": spec_text(row.kind, row.spec),
        "title": row.title,
        "priority": priority_name(row.priority),
        "status": row.status,
        "next_fire_at": iso_utc(row.next_fire_at) if row.status == "active" else None,
        "last_fire_at": iso_utc(row.last_fire_at),
        "fire_count": row.fire_count,
        "missed_count": row.missed_count,
        "error_streak": row.error_streak,
        "last_error": row.last_error,
        "until": iso_utc(row.until_at),
    }


def list_hooks(
    ctx: DeskContext, *, owner: str | None, include_closed: bool
) -> list[dict[str, Any]]:
    if owner is not None:
        ctx.desk.role(owner)
    rows = hook_rows.list_hooks(ctx.conn, owner=owner, include_closed=include_closed)
    return [hook_view(r) for r in rows]


def _hook(conn: sqlite3.Connection, hook_id: int) -> Hook:
    row = hook_rows.get_hook(conn, hook_id)
    if row is None:
        raise UnknownHook(hook_id)
    return row


def next_fires(ctx: DeskContext, hook_id: int, *, count: int) -> dict[str, Any]:
    row = _hook(ctx.conn, hook_id)
    spec = spec_from_json(row.kind, row.spec)
    fires: list[int] = []
    if row.status == "active":
        after = ctx.now if not isinstance(spec, AtSpec) else ctx.now - 1
        fires = [
            f
            for f in upcoming(spec, after=after, count=count)
            if row.until_at is None or f < row.until_at
        ]
    return {
        "id": hook_id,
        "spec": describe(spec, tz=ctx.tz),
        "fires": [{"utc": iso_utc(f), "local": local_text(f, ctx.tz)} for f in fires],
    }


def cancel_hook(ctx: DeskContext, hook_id: int, *, by: str) -> dict[str, Any]:
    """Cancel a hook: its owner may, and so may the supervisor (a person, from the console)."""
    with ctx.write() as conn:
        row = _hook(conn, hook_id)
        if by not in (row.owner, SUPERVISOR):
            raise NotHookOwner(hook_id, row.owner)
        if row.status != "active":
            raise HookClosed(hook_id, row.status)
        hook_rows.set_hook_status(conn, hook_id, status="cancelled")
        add_event(
            conn,
            at=ctx.now,
            kind="hook.cancelled",
            role=row.owner,
            actor=by,
            subject=f"hook:{hook_id}",
        )
    return {"id": hook_id, "status": "cancelled"}


# -- firing, on the tick -------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Fired:
    hook_id: int
    owner: str
    kind: str
    title: str
    fire_at: int | None
    missed: int
    item_id: int | None = None
    error: str | None = None
    would: bool = False
    priority: str = "normal"

    def to_json(self) -> dict[str, Any]:
        return {
            "hook_id": self.hook_id,
            "owner": self.owner,
            "kind": self.kind,
            "title": self.title,
            "fire_at": iso_utc(self.fire_at),
            "missed": self.missed,
            "item_id": self.item_id,
            "error": self.error,
            "would": "run"
            if self.would and self.kind == "probe"
            else ("fire" if self.would else None),
        }


def fire_due_hooks(ctx: DeskContext, *, execute: bool) -> list[Fired]:
    """Fire every due hook. Dry-run evaluates timers in memory and lists due probes, writing nothing."""
    due = hook_rows.due_hooks(ctx.conn, now=ctx.now)
    fired: list[Fired] = []
    probes: dict[int, str] = {}
    for row in due:
        if row.owner not in ctx.desk.roles or not ctx.desk.roles[row.owner].enabled:
            continue
        if row.kind == "probe":
            if execute:
                probes[row.id] = probe_target(row.spec)
            else:
                fired.append(_fired(row, fire_at=None, missed=0, would=True))
            continue
        fired.append(_fire_timer(ctx, row, execute=execute))
    if probes:
        fired.extend(_run_probes(ctx, {i: t for i, t in probes.items()}, {r.id: r for r in due}))
    return fired


def _fired(row: Hook, **kw: Any) -> Fired:
    kw.setdefault("priority", priority_name(row.priority))
    return Fired(
        hook_id=row.id,
        owner=row.owner,
        kind=row.kind,
        title=row.title,
        **kw,
    )


def _fire_timer(ctx: DeskContext, row: Hook, *, execute: bool) -> Fired:
    try:
        spec = spec_from_json(row.kind, row.spec)
        since = row.last_fire_at if row.last_fire_at is not None else row.created_at
        decision = decide_fire(spec, since=since, now=ctx.now, until_at=row.until_at)
    except Exception as exc:  # a corrupt hook must not stop the other hooks or roles
        if execute:
            with ctx.write() as conn:
                hook_rows.record_hook_error(
                    conn,
                    row.id,
                    error=str(exc)[:300],
                    streak=row.error_streak + 1,
                    retry_at=ctx.now + 3600_000,
                    status="active",
                )
        return _fired(row, fire_at=None, missed=0, error=str(exc)[:300])
    if not execute:
        return _fired(row, fire_at=decision.fire_at, missed=decision.missed, would=True)
    item_id = None
    with ctx.write() as conn:
        if decision.fire_at is None:
            hook_rows.reschedule_hook(
                conn, row.id, next_fire_at=decision.next_fire_at, status=decision.status
            )
            return _fired(row, fire_at=None, missed=0)
        item_id = _enqueue_fire(
            conn,
            ctx,
            row,
            title=row.title,
            body=row.body,
            priority=priority_name(row.priority),
            missed=decision.missed,
        )
        hook_rows.record_fire(
            conn,
            row.id,
            fired_at=decision.fire_at or ctx.now,
            missed=decision.missed,
            next_fire_at=decision.next_fire_at,
            status=decision.status,
        )
    return _fired(row, fire_at=decision.fire_at, missed=decision.missed, item_id=item_id)


def _enqueue_fire(
    conn: sqlite3.Connection,
    ctx: DeskContext,
    row: Hook,
    *,
    title: str,
    body: str,
    priority: str,
    missed: int,
    ref: str | None = None,
    dedup_key: str | None = None,
) -> int:
    note = (
        f"\n\n(coalesced {missed} missed fire{'s' if missed != 1 else ''} during downtime)"
        if missed
        else ""
    )
    item_id, _ = insert(
        conn,
        NewItem(
            role=row.owner,
            source="system",
            title=title,
            body=body + note,
            ref=ref or f"hook:{row.id}",
            priority=priority,
            dedup_key=dedup_key or f"hook:{row.id}",
        ),
        now=ctx.now,
    )
    add_event(
        conn,
        at=ctx.now,
        kind="hook.fired",
        role=row.owner,
        subject=f"hook:{row.id}",
        detail={"item": item_id, "missed": missed},
    )
    return item_id


def _run_probes(ctx: DeskContext, targets: dict[int, str], rows: dict[int, Hook]) -> list[Fired]:
    from deskd.adapters.probes import ProbeResult, run_probes

    section = ctx.desk.section
    # The allowlist is checked again at fire: a module removed from it since the hook was
    # added must not run.
    refused = {
        i: ProbeResult(error=f"{t} is no longer in probe_allowlist")
        for i, t in targets.items()
        if not probe_allowed(t, section.probe_allowlist)
    }
    results = run_probes(
        {i: t for i, t in targets.items() if i not in refused},
        cwd=ctx.settings.home,
        timeout_s=section.probe_timeout,
        budget_s=section.probe_budget,
    )
    results.update(refused)
    fired: list[Fired] = []
    with ctx.write() as conn:
        for hook_id, result in sorted(results.items()):
            row = rows[hook_id]
            spec = spec_from_json("probe", row.spec)
            decision = decide_fire(
                spec,
                since=row.last_fire_at or row.created_at,
                now=ctx.now,
                until_at=row.until_at,
            )
            error = result.error
            entries: list[dict[str, Any]] = []
            if error is None:
                try:
                    entries = probe_items(result.value)
                except ValueError as exc:
                    error = str(exc)
            if error is not None:
                fired.append(_probe_failed(conn, ctx, row, error))
                continue
            item_id = None
            for entry in entries:
                item_id = _enqueue_fire(
                    conn,
                    ctx,
                    row,
                    title=str(entry["title"]),
                    body=str(entry.get("body", "")),
                    priority=str(entry.get("priority", priority_name(row.priority))),
                    missed=0,
                    ref=entry.get("ref"),
                    dedup_key=entry.get("dedup_key") or f"hook:{hook_id}",
                )
            hook_rows.record_fire(
                conn,
                hook_id,
                fired_at=decision.fire_at or ctx.now,
                missed=decision.missed,
                next_fire_at=decision.next_fire_at,
                status=decision.status,
            )
            fired.append(
                _fired(row, fire_at=decision.fire_at, missed=decision.missed, item_id=item_id)
            )
    return fired


def _probe_failed(conn: sqlite3.Connection, ctx: DeskContext, row: Hook, error: str) -> Fired:
    streak = row.error_streak + 1
    disabled = streak >= PROBE_ERRORS_TO_DISABLE
    hook_rows.record_hook_error(
        conn,
        row.id,
        error=error[:300],
        streak=streak,
        retry_at=None if disabled else ctx.now + PROBE_RETRY_S * 1000,
        status="disabled" if disabled else "active",
    )
    if disabled:
        target = probe_target(row.spec)
        _enqueue_fire(
            conn,
            ctx,
            row,
            title=f"probe hook {row.id} disabled after {streak} errors: {target}",
            body=f"Last error: {error}\nFix the probe, then add it again with `deskd hook add --probe {target}`.",
            priority="high",
            missed=0,
            dedup_key=f"hook-disabled:{row.id}",
        )
    return _fired(row, fire_at=None, missed=0, error=error)
