"""Capability routing's use cases (routing/__init__.py says what they are).

The board (``deskd status``) and every tick import this module: what only the writing needs
(the inbox, the tasks, help requests and through them the pager) is imported where it is used.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypedDict

from deskd.core.timeparse import iso_utc
from deskd.core.values import priority_rank
from deskd.errors import DeskdError, InvalidValue, NoRoles
from deskd.routing.rules import Candidate, Routing, capability_problem, choose
from deskd.routing.store import open_tasks_by_role, routed_open_tasks, routed_unread_items
from deskd.service.desk.context import DeskContext
from deskd.service.desk.presence import derive, is_overdue, overdue_after_s
from deskd.store import items as item_rows
from deskd.store import sessions as session_rows
from deskd.store.hosts import list_hosts
from deskd.store.pauses import live_pauses
from deskd.store.questions import held_work

if TYPE_CHECKING:
    from deskd.service.desk.inbox import NewItem


def candidates(ctx: DeskContext, capability: str | None) -> list[Candidate]:
    """Enabled roles with ``capability`` (every enabled role when None), with their load and
    what keeps each from working now."""
    conn = ctx.conn
    sessions = {r.role: r for r in session_rows.current_sessions(conn)}
    unread = item_rows.count_unread_by_role(conn)
    tasks = open_tasks_by_role(conn)
    blocked = _blocked(ctx)
    return [
        Candidate(
            role=name,
            presence=derive(ctx, sessions.get(name)),
            open_items=unread.get(name, 0),
            open_tasks=tasks.get(name, 0),
            blocked=blocked.get(name),
        )
        for name, role in sorted(ctx.desk.roles.items())
        if role.enabled and (capability is None or capability in role.capabilities)
    ]


def _blocked(ctx: DeskContext) -> dict[str, str]:
    """Per role, why it cannot work now: paused, its desk paused, or bound to a host whose
    last tick is ``DESKD_TICK_OVERDUE`` old (or that never ticked)."""
    pauses = live_pauses(ctx.conn)
    desk_pause = next((p for p in pauses if p.role is None), None)
    out: dict[str, str] = {}
    if desk_pause is not None:
        out = {name: f"desk paused: {desk_pause.reason}" for name in ctx.desk.role_names}
    for p in pauses:
        if p.role is not None:
            out[str(p.role)] = f"paused: {p.reason}"
    bound = {name: ctx.desk.host_of(name) for name in ctx.desk.role_names}
    if any(bound.values()):
        ticked = {name: last for name, _first, last, _n in list_hosts(ctx.conn)}
        after_s = overdue_after_s(ctx.settings)
        for name, host in bound.items():
            last = ticked.get(host) if host else None
            if host and name not in out and is_overdue(last, now=ctx.now, after_s=after_s):
                out[name] = f"host {host} is not ticking"
    return out


def route(ctx: DeskContext, capability: str) -> Routing:
    """Where work asked of ``capability`` goes now (``role`` None when no enabled role has it)."""
    problem = capability_problem(capability)
    if problem:
        raise InvalidValue("--capability", capability, problem)
    if not ctx.desk.roles:
        raise NoRoles()
    return choose(capability, candidates(ctx, capability))


class RoutedWork(TypedDict):
    """An open item or task capability routing placed, and why (the board's ``routed``)."""

    kind: str
    id: int
    role: str
    title: str
    capability: str
    why: str


def routed_work(ctx: DeskContext, *, role: str | None = None, limit: int = 50) -> list[RoutedWork]:
    """Open work that capability routing placed, newest first, each with why (the board)."""
    found: list[RoutedWork] = [
        {
            "kind": kind,
            "id": int(r.id),
            "role": str(r.role),
            "title": str(r.title),
            "capability": str(r.capability),
            "why": str(r.routed_why or ""),
        }
        for kind, rows in (
            ("item", routed_unread_items(ctx.conn, limit=limit)),
            ("task", routed_open_tasks(ctx.conn, limit=limit)),
        )
        for r in rows
        if role is None or r.role == role
    ]
    return found[:limit]


def explain_lines(ctx: DeskContext, role: str) -> list[str]:
    """The part of `wake explain --role` that says why routed work came to ``role``."""
    work = routed_work(ctx, role=role)
    return [
        f"{w['kind']} {w['id']} came by capability — {w['why']}"
        for w in work
        if not w["why"].startswith("unroutable")
    ] + [
        f"item {w['id']} holds unroutable work for a person: {w['title']}"
        for w in work
        if w["why"].startswith("unroutable")
    ]


def page_unroutable(
    ctx: DeskContext,
    routing: Routing,
    *,
    what: str,
    title: str,
    body: str,
    priority: str,
    held: dict[str, Any],
) -> tuple[int, dict[str, Any]]:
    """Ask a person to route work no enabled role can take, at the work's own priority;
    returns the help request's item id and what the answer says of it. The work is kept with
    the request: the first executing tick after a role gains the capability routes it there
    (``route_held_work``)."""
    from deskd.service.desk.inbox import MAX_BODY
    from deskd.service.engine.questions import raise_help

    # The most available enabled role holds the request: a help request needs a role for its
    # channels and silences; it never wakes that role.
    holder = choose("any", candidates(ctx, None)).role
    if holder is None:
        raise NoRoles()
    known = sorted({c for r in ctx.desk.roles.values() if r.enabled for c in r.capabilities})
    lines = [
        f"No enabled role declares the capability {routing.capability!r} "
        f"(declared: {', '.join(known) or 'none'}).",
        f"The {what}: {title}",
        *([body] if body else []),
        f"Route it by hand (`--for ROLE`), or give a role capabilities = "
        f'["{routing.capability}"] in deskd.toml.',
    ]
    out = raise_help(
        ctx,
        role=holder,
        title=f"unroutable: {routing.capability}: {title}"[:500],
        body="\n".join(lines)[:MAX_BODY],
        actor=ctx.settings.role or "operator",
        capability=routing.capability,
        priority=priority,
        held_work=json.dumps({"what": what, **held}),
    )
    unrouted = {
        "routed": f"unroutable: {routing.capability}",
        "unroutable": routing.capability,
        "held_by": holder,
        "attempt_id": out["attempt_id"],
        "page_ids": out["page_ids"],
    }
    return out["item_id"], unrouted


def enqueue_by_capability(ctx: DeskContext, item: NewItem, capability: str) -> dict[str, Any]:
    """Enqueue ``item`` for the most available role with ``capability``; when none has it,
    a person is paged to route it (the item is then the help request's text). The answer is
    `inbox enqueue --capability --json` (docs/cli.md)."""
    from deskd.service.desk.inbox import check_item, enqueue

    check_item(ctx, item)
    routing = route(ctx, capability)
    if routing.role is None:
        facts = f"(source {item.source}, priority {item.priority}" + (
            f", ref {item.ref})" if item.ref else ")"
        )
        body = f"{item.body}\n{facts}" if item.body else facts
        held = {k: getattr(item, k) for k in ("source", "title", "body", "priority", "ref")}
        help_id, unrouted = page_unroutable(
            ctx,
            routing,
            what="item",
            title=item.title,
            body=body,
            priority=item.priority,
            held=held,
        )
        return {"id": help_id, "deduped": False, "role": None, **unrouted}
    routed = item._replace(role=routing.role)
    item_id, deduped = enqueue(ctx, routed, routed=(capability, routing.why))
    return {
        "id": item_id,
        "deduped": deduped,
        "role": routing.role,
        "routed": routing.why,
        "passed_over": passed_over(routing),
    }


def passed_over(routing: Routing) -> list[dict[str, str]]:
    return [{"role": role, "why": why} for role, why in routing.passed_over]


def add_task_by_capability(
    ctx: DeskContext,
    *,
    title: str,
    capability: str,
    priority: str = "normal",
    due: str | None = None,
    detail: str = "",
    by: str | None = None,
) -> dict[str, Any]:
    """Assign a task to the most available role with ``capability``; when none has it, a
    person is paged to assign it (no task is created until then). The answer is `task add
    --capability --json` (docs/cli.md)."""
    from deskd.service.desk.inbox import validate_text
    from deskd.service.work.tasks import actor, due_ms

    actor(ctx, by)
    validate_text(title, detail)
    priority_rank(priority)
    due_at = due_ms(ctx, due)
    routing = route(ctx, capability)
    held = {
        "title": title,
        "detail": detail,
        "priority": priority,
        "due": iso_utc(due_at) if due_at is not None else None,
        "by": by,
    }
    if routing.role is None:
        facts = f"(priority {priority}" + (f", due {due})" if due else ")")
        help_id, unrouted = page_unroutable(
            ctx,
            routing,
            what="task",
            title=title,
            body=f"{detail}\n{facts}".strip(),
            priority=priority,
            held=held,
        )
        return {"id": None, "role": None, "help_item_id": help_id, **unrouted}
    return {**_add_task(ctx, held, routing), "passed_over": passed_over(routing)}


def route_held_work(ctx: DeskContext) -> int:
    """Route each piece of held work to the role that now has its capability, one transaction
    each; returns how many moved. The help request is acked, so this tick's plan resolves its
    wake and settles the page; a ``routing.rerouted`` event says where it went and why."""
    held = held_work(ctx.conn) if ctx.desk.roles else []
    if not held:  # the usual tick: one indexed read
        return 0
    from deskd.store.items import ack_items

    moved = 0
    for item_id, holder, capability, text in held:
        routing = route(ctx, capability)
        if routing.role is None:
            continue
        work = json.loads(text)
        try:
            with ctx.write() as conn:
                subject = _place(ctx, work, routing)
                ack_items(conn, holder, [item_id], now=ctx.now, by="deskd")
                detail = {"capability": capability, "why": routing.why, "help_item_id": item_id}
                ctx.event(conn, "routing.rerouted", subject, role=routing.role, detail=detail)
        except DeskdError:
            continue  # it no longer fits (a source removed): a person routes it, as asked
        moved += 1
    return moved


def _place(ctx: DeskContext, work: dict[str, Any], routing: Routing) -> str:
    if work["what"] == "task":
        return f"task:{_add_task(ctx, work, routing)['id']}"
    from deskd.service.desk.inbox import NewItem, enqueue

    item = NewItem(
        role=str(routing.role),
        source=work["source"],
        title=work["title"],
        body=work["body"],
        priority=work["priority"],
        ref=work["ref"],
    )
    item_id, _ = enqueue(ctx, item, routed=(routing.capability, routing.why))
    return f"item:{item_id}"


def _add_task(ctx: DeskContext, work: dict[str, Any], routing: Routing) -> dict[str, Any]:
    from deskd.service.work.tasks import add_task

    added = add_task(
        ctx,
        title=work["title"],
        role=str(routing.role),
        priority=work["priority"],
        due=work["due"],
        detail=work["detail"],
        by=work["by"],
        routed=(routing.capability, routing.why),
    )
    return dict(added)
