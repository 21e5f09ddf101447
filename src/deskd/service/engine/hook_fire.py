"""Fire the due wake hooks on each tick (added, listed and cancelled in hooks.py).

A fired hook enqueues an item for its owner (source ``system``, ref ``hook:<id>``, deduped by
hook), and the item is what wakes the role. Probes run in child processes outside any write
transaction; three consecutive errors disable a probe and tell its owner.

Apart from hooks.py, and with the schedule's rules (core/wakehooks.py, schedule/rules.py) and
the inbox's writer imported only when a hook is due: a tick that finds none loads neither.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NamedTuple, TypedDict, cast

from deskd.core.timeparse import iso_utc
from deskd.core.values import priority_name
from deskd.service.desk.context import DeskContext
from deskd.store import hooks as hook_rows

if TYPE_CHECKING:
    from deskd.core.wakehooks import FireDecision
    from deskd.store.dialect import Connection
    from deskd.store.records.work import Hook

PROBE_RETRY_S = 60


class FiredJson(TypedDict):
    """A fired (or due) hook as the tick's JSON lists it under ``hooks_fired``."""

    hook_id: int
    owner: str
    kind: str
    title: str
    fire_at: str | None
    missed: int
    item_id: int | None
    error: str | None
    would: str | None


class Fired(NamedTuple):
    """One due hook: the item it enqueued (or would), or why it could not fire."""

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

    def to_json(self) -> FiredJson:
        would = ("run" if self.kind == "probe" else "fire") if self.would else None
        shown = {**self._asdict(), "fire_at": iso_utc(self.fire_at), "would": would}
        del shown["priority"]
        return cast("FiredJson", shown)


def fire_due_hooks(ctx: DeskContext, *, execute: bool) -> list[Fired]:
    """Fire every due hook. Dry-run evaluates timers in memory and lists due probes, writing nothing."""
    due = hook_rows.due_hooks(ctx.conn, now=ctx.now)
    if not due:
        return []
    from deskd.core.wakehooks import probe_target

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
        fired.extend(_run_probes(ctx, probes, {r.id: r for r in due}))
    return fired


def _fired(row: Hook, **kw: Any) -> Fired:
    kw.setdefault("priority", priority_name(row.priority))
    return Fired(hook_id=row.id, owner=row.owner, kind=row.kind, title=row.title, **kw)


def _decide(ctx: DeskContext, row: Hook) -> FireDecision:
    """Whether ``row`` fires now, counting from its last fire (or when it was added)."""
    from deskd.core.wakehooks import decide_fire, spec_from_json

    since = row.last_fire_at if row.last_fire_at is not None else row.created_at
    spec = spec_from_json(row.kind, row.spec)
    return decide_fire(spec, since=since, now=ctx.now, until_at=row.until_at)


def _fire_timer(ctx: DeskContext, row: Hook, *, execute: bool) -> Fired:
    try:
        decision = _decide(ctx, row)
    except Exception as exc:  # a corrupt hook must not stop the other hooks or roles
        if execute:
            with ctx.write(row.owner) as conn:
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
    with ctx.write(row.owner) as conn:
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
        return _record_fire(conn, ctx, row, decision, item_id)


def _record_fire(
    conn: Connection, ctx: DeskContext, row: Hook, decision: FireDecision, item_id: int | None
) -> Fired:
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
    conn: Connection,
    ctx: DeskContext,
    row: Hook,
    *,
    title: str,
    body: str,
    priority: str,
    missed: int,
    ref: str | None = None,
    dedup_key: str | None = None,
    notice: bool = False,
) -> int:
    from deskd.service.desk.inbox import NewItem, insert

    done_when = json.loads(row.spec).get("done_when")
    if done_when and not notice:  # the fire's work is a task, done when its check passes
        from deskd.service.work.tasks import add_task

        task = add_task(
            ctx,
            title=title,
            role=row.owner,
            priority=priority,
            detail=body,
            by=row.owner,
            done_when=done_when,
        )
        ref = f"task:{task['id']}"
    plural = "s" if missed != 1 else ""
    note = f"\n\n(coalesced {missed} missed fire{plural} during downtime)" if missed else ""
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
    detail = {"item": item_id, "missed": missed}
    ctx.event(conn, "hook.fired", f"hook:{row.id}", role=row.owner, detail=detail)
    return item_id


def _run_probes(ctx: DeskContext, targets: dict[int, str], rows: dict[int, Hook]) -> list[Fired]:
    from deskd.adapters.process import ProbeResult, run_probes
    from deskd.core.wakehooks import probe_allowed, probe_items, probe_timeout

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
        own_timeouts={i: own for i in targets if (own := probe_timeout(rows[i].spec)) is not None},
    )
    results.update(refused)
    fired: list[Fired] = []
    with ctx.write({rows[i].owner for i in results}) as conn:
        for hook_id, result in sorted(results.items()):
            row = rows[hook_id]
            decision = _decide(ctx, row)
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
                    dedup_key=entry.get("dedup_key"),
                )
            fired.append(_record_fire(conn, ctx, row, decision, item_id))
    return fired


def _probe_failed(conn: Connection, ctx: DeskContext, row: Hook, error: str) -> Fired:
    from deskd.core.wakehooks import PROBE_ERRORS_TO_DISABLE, probe_target

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
            notice=True,
        )
    return _fired(row, fire_at=None, missed=0, error=error)
