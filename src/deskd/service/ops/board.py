"""The board (``deskd status``): every role's presence, overdue items and the desk's health.

A read path: it never opens a write transaction (lesson 43 — a board that took the write lock
stalled every writer).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from deskd.core.ladder import RUNGS
from deskd.core.timeparse import iso_utc, to_ms
from deskd.service.desk.context import DeskContext
from deskd.service.desk.inbox import ledger_entry
from deskd.service.desk.presence import is_overdue, overdue_after_s, role_presences
from deskd.service.engine.attempt_views import attempt_view
from deskd.store.attempts import covered_item_ids, list_attempts
from deskd.store.events import get_meta
from deskd.store.hosts import list_hosts
from deskd.store.items import overdue_unread
from deskd.store.pages import list_pages
from deskd.store.pauses import live_pauses
from deskd.store.records import JSON, shown

LAST_TICK_KEY = "last_tick_at"
NO_TICK_HINT = "no tick has run yet: see `deskd cron-line`"
OVERDUE_SHOWN = 50


def board(ctx: DeskContext) -> JSON:
    """The board as `status --json` prints it (docs/contract.md): roles, attempts, pages,
    health, overdue."""
    from deskd.routing.service import routed_work  # capability routing: its own reads

    overdue = overdue_items(ctx)
    return {
        "now": iso_utc(ctx.now),
        "roles": role_presences(ctx),
        "attempts": live_attempts(ctx),
        "pages": open_pages(ctx),
        "paused": paused(ctx),
        "stalled_tasks": stalled_tasks(ctx),
        "stuck": stuck(ctx),
        "routed": routed_work(ctx),
        "health": health(ctx),
        "hosts": hosts(ctx),
        "overdue": overdue[:OVERDUE_SHOWN],
        "overdue_total": len(overdue),
    }


def stalled_tasks(ctx: DeskContext) -> list[dict[str, Any]]:
    """Tasks woken ``stall_after`` times without changing: they wake no one until updated."""
    from deskd.service.work.task_views import load_task_views

    tasks, _, _ = load_task_views(ctx.conn, ctx.desk, now=ctx.now)
    return [shown(t, "id role title status idle_wakes") for t in tasks if t.stalled]


def stuck(ctx: DeskContext) -> list[dict[str, Any]]:
    """Launches stopped as stuck in the last day (service/engine/stuck.py), and whether the
    resumed session recovered (its relaunch landed)."""
    from deskd.store.metrics import stuck_launches

    rows = stuck_launches(ctx.conn, since=ctx.now - 86_400_000)
    return [
        {"role": r, "attempt_id": i, "detail": d, "at": iso_utc(at), "recovered": ok}
        for r, i, d, at, ok in rows
    ]


def live_attempts(ctx: DeskContext) -> list[dict[str, Any]]:
    """Every pending attempt with its rung; ``badge`` marks the red ones (a rung that waits
    for a person)."""
    rows = list_attempts(ctx.conn, role=None, open_only=True, limit=500)
    return [
        {**attempt_view(r), "badge": RUNGS[r.rung].waits}
        for r in sorted(rows, key=lambda r: (r.role, r.key))
    ]


def open_pages(ctx: DeskContext) -> list[dict[str, Any]]:
    from deskd.service.paging.pages import page_view

    shown = ctx.settings.role is None  # an agent sees channel names and results, no URL
    rows = list_pages(ctx.conn, open_only=True, limit=200)
    return [page_view(r, urls=shown) for r in rows]


def paused(ctx: DeskContext) -> list[JSON]:
    return [
        {"role": r.role, "reason": r.reason, "since": iso_utc(r.started_at)}
        for r in live_pauses(ctx.conn)
    ]


def overdue_items(ctx: DeskContext) -> list[dict[str, Any]]:
    """Unread items past their SLA, urgent first, each with how long it has been overdue."""
    covered = covered_item_ids(ctx.conn)
    return [
        {
            **ledger_entry(row, now=ctx.now, escalated=row.id in covered),
            "overdue_s": (ctx.now - row.sla_due_at) // 1000,
        }
        for row in overdue_unread(ctx.conn, now=ctx.now)
    ]


def hosts(ctx: DeskContext) -> list[dict[str, Any]]:
    """Every host that ticked against this database: its last tick, whether it stopped
    ticking, and the roles bound to it (their wakes climb to a person while it is down)."""
    bound: dict[str, list[str]] = {}
    for name in ctx.desk.role_names:
        host = ctx.desk.host_of(name)
        if host is not None:
            bound.setdefault(host, []).append(name)
    after_s = overdue_after_s(ctx.settings)
    ticked = list_hosts(ctx.conn)
    known = {name for name, *_ in ticked}
    never = [(name, None, None, 0) for name in sorted(set(bound) - known)]  # never ticked
    return [
        {
            "name": name,
            "first_tick_at": iso_utc(first),
            "last_tick_at": iso_utc(last),
            "last_tick_age_s": None if last is None else max(0, (ctx.now - last) // 1000),
            "ticks": ticks,
            "stale": is_overdue(last, now=ctx.now, after_s=after_s),
            "overdue": is_overdue(last, now=ctx.now, after_s=after_s),
            "overdue_after_s": after_s,
            "roles": bound.get(name, []),
        }
        for name, first, last, ticks in [*ticked, *never]
    ]


def health(ctx: DeskContext) -> JSON:
    """Which desk and database this is, and when a tick last ran (dry or executing)."""
    executed = parse_tick_instant(get_meta(ctx.conn, LAST_TICK_KEY))
    logged, mode = last_logged_tick(ctx)
    # A dry-run tick writes nothing to the database (that is its promise), so a desk whose
    # cron line still runs dry is seen through logs/tick.log instead.
    candidates = [t for t in (executed, logged) if t is not None]
    last = max(candidates) if candidates else None
    if last is not None and last == executed and (logged is None or executed >= logged):
        mode = "execute"
    age = None if last is None else max(0, (ctx.now - last) // 1000)
    return {
        "last_tick_mode": mode,
        "desk": str(ctx.desk.path),
        "desk_name": ctx.desk.name,
        "timezone": ctx.tz,
        "db": ctx.settings.database_shown,
        "last_tick_at": iso_utc(last),
        "last_tick_age_s": age,
        "tick_stale": age is None or age >= overdue_after_s(ctx.settings),
        "message": NO_TICK_HINT if last is None else None,
        # A desk whose ticks still run dry has never launched anything: say so apart.
        "last_execute_at": iso_utc(executed),
        "last_execute_age_s": None if executed is None else max(0, (ctx.now - executed) // 1000),
    }


def last_logged_tick(ctx: DeskContext) -> tuple[int | None, str | None]:
    """The time and mode (``dry-run``/``execute``) of the last line of logs/tick.log."""
    path = ctx.settings.log_path / "tick.log"
    try:
        with path.open("rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - 4096))
            tail = fh.read().decode("utf-8", "replace").strip().splitlines()
    except OSError:
        return None, None
    if not tail:
        return None, None
    words = tail[-1].split()
    mode = next((w for w in words if w in ("dry-run", "execute")), None)
    return parse_tick_instant(words[0] if words else None), mode


def parse_tick_instant(raw: str | None) -> int | None:
    """The tick stores Unix ms; an ISO 8601 text is accepted too. Unreadable counts as absent."""
    if raw is None or not raw.strip():
        return None
    text = raw.strip()
    if text.lstrip("-").isdigit():
        return int(text)
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return to_ms(value if value.tzinfo else value.replace(tzinfo=UTC))
