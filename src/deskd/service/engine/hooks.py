"""Wake hooks: add, list, preview and cancel them.

Firing them lives in service/engine/hook_fire.py: a tick that finds no hook due builds none
of the schedule's records, and ``hook add`` none of the tick's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from deskd.core.timeparse import iso_utc, local_text, parse_duration, parse_instant
from deskd.core.values import SUPERVISOR, priority_name, priority_rank
from deskd.core.wakehooks import (
    PROBE_DEFAULT_EVERY_S,
    check_probe_target,
    decide_fire,
    spec_from_json,
    spec_json,
    spec_text,
)
from deskd.errors import HookClosed, InvalidValue, NotHookOwner, UnknownHook
from deskd.schedule.rules import (
    AtSpec,
    Spec,
    describe,
    span_text,
    upcoming,
    validate_at,
    validate_cron,
    validate_every,
    validate_timezone,
)
from deskd.service.desk.context import DeskContext
from deskd.service.desk.inbox import validate_text
from deskd.store import hooks as hook_rows
from deskd.store.records import JSON, shown

if TYPE_CHECKING:
    from deskd.store.dialect import Connection
    from deskd.store.records.work import Hook


class HookRequest(NamedTuple):
    owner: str
    title: str
    body: str = ""
    priority: str = "normal"
    at: str | None = None
    every: str | None = None
    cron: str | None = None
    tz: str | None = None
    probe: str | None = None
    timeout: str | None = None
    until: str | None = None
    done_when: str | None = None
    """Each fire also opens a task for the owner carrying this check (core/tasks.py)."""


def add_hook(ctx: DeskContext, req: HookRequest) -> JSON:
    """Validate and register a hook; refuses an impossible or past schedule with the reason.
    Returns `hook add --json`: the new hook and when it first fires."""
    ctx.desk.role(req.owner)
    validate_text(req.title, req.body)
    rank = priority_rank(req.priority)
    kind, spec, target = _spec(ctx, req)
    timeout_s = _probe_timeout(req, budget_s=ctx.desk.section.probe_budget)
    if req.done_when is not None:
        from deskd.core.tasks import parse_check

        parse_check(req.done_when, ctx.desk.section.probe_allowlist)
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
            spec=spec_json(spec, target=target, timeout_s=timeout_s, done_when=req.done_when),
            title=req.title,
            body=req.body,
            priority=rank,
            until_at=until_at,
            next_fire_at=decision.next_fire_at,
            now=ctx.now,
        )
        detail = {"kind": kind, "spec": describe(spec, tz=ctx.tz)}
        ctx.event(conn, "hook.added", f"hook:{hook_id}", role=req.owner, detail=detail)
    return {"id": hook_id, "kind": kind, "next_fire_at": iso_utc(decision.next_fire_at)}


def _probe_timeout(req: HookRequest, *, budget_s: int) -> int | None:
    """A probe's own timeout (``--timeout``), replacing the desk's ``probe_timeout`` for it;
    never above the tick's ``probe_budget``, which cuts every probe run there."""
    if req.timeout is None:
        return None
    if not req.probe:
        raise InvalidValue("--timeout", req.timeout, "only probe hooks take a timeout")
    seconds = parse_duration(req.timeout, what="--timeout")
    if seconds < 1:
        raise InvalidValue("--timeout", req.timeout, "at least 1s")
    if seconds > budget_s:
        budget = span_text(budget_s)
        raise InvalidValue("--timeout", req.timeout, f"at most the probe_budget, {budget}")
    return seconds


def _spec(ctx: DeskContext, req: HookRequest) -> tuple[str, Spec, str | None]:
    given = {"--at": req.at, "--every": req.every, "--cron": req.cron, "--probe": req.probe}
    # A probe's --every is how often it runs, not a schedule of its own.
    chosen = [n for n, v in given.items() if v and not (n == "--every" and req.probe)]
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


def hook_view(row: Hook) -> JSON:
    return {
        **shown(row, "id owner kind"),
        "spec": spec_text(row.kind, row.spec),
        "title": row.title,
        "priority": priority_name(row.priority),
        "status": row.status,
        "next_fire_at": iso_utc(row.next_fire_at) if row.status == "active" else None,
        **shown(row, "last_fire_at", iso="last_fire_at"),
        **shown(row, "fire_count missed_count error_streak last_error"),
        "until": iso_utc(row.until_at),
    }


def list_hooks(ctx: DeskContext, *, owner: str | None, include_closed: bool) -> list[JSON]:
    if owner is not None:
        ctx.desk.role(owner)
    rows = hook_rows.list_hooks(ctx.conn, owner=owner, include_closed=include_closed)
    return [hook_view(r) for r in rows]


def _hook(conn: Connection, hook_id: int) -> Hook:
    row = hook_rows.get_hook(conn, hook_id)
    if row is None:
        raise UnknownHook(hook_id)
    return row


def next_fires(ctx: DeskContext, hook_id: int, *, count: int) -> JSON:
    """`hook next --json`: the schedule in words and its next fires."""
    row = _hook(ctx.conn, hook_id)
    spec = spec_from_json(row.kind, row.spec)
    fires: list[int] = []
    if row.status == "active":
        after = ctx.now if not isinstance(spec, AtSpec) else ctx.now - 1
        found = upcoming(spec, after=after, count=count)
        fires = [f for f in found if row.until_at is None or f < row.until_at]
    return {
        "id": hook_id,
        "spec": describe(spec, tz=ctx.tz),
        "fires": [{"utc": iso_utc(f), "local": local_text(f, ctx.tz)} for f in fires],
    }


def cancel_hook(ctx: DeskContext, hook_id: int, *, by: str) -> JSON:
    """Cancel a hook: its owner may, and so may the supervisor (a person, from the console)."""
    with ctx.write() as conn:
        row = _hook(conn, hook_id)
        if by not in (row.owner, SUPERVISOR):
            raise NotHookOwner(hook_id, row.owner)
        if row.status != "active":
            raise HookClosed(hook_id, row.status)
        hook_rows.set_hook_status(conn, hook_id, status="cancelled")
        ctx.event(conn, "hook.cancelled", f"hook:{hook_id}", role=row.owner, actor=by)
    return {"id": hook_id, "status": "cancelled"}
