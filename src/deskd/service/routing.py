"""Capability routing (``--capability``): pick the most available enabled role that declares
the capability, or page a person when none does.

The ranking is core/routing.py; this module gathers each candidate's presence and open load
from the database, and raises the "unroutable" help request (service/help.py) so the work is
never dropped: a person decides where it goes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from deskd.core.routing import Candidate, Routing, capability_problem, choose
from deskd.errors import InvalidValue, NoRoles
from deskd.service.context import DeskContext
from deskd.service.inbox import MAX_BODY
from deskd.service.presence import derive
from deskd.store import items as item_rows
from deskd.store import sessions as session_rows
from deskd.store.routing import open_tasks_by_role

if TYPE_CHECKING:
    from deskd.service.inbox import NewItem


def declared_capabilities(ctx: DeskContext) -> list[str]:
    """Every capability an enabled role of the desk declares, sorted."""
    return sorted({c for r in ctx.desk.roles.values() if r.enabled for c in r.capabilities})


def candidates(ctx: DeskContext, capability: str | None) -> list[Candidate]:
    """Enabled roles with ``capability`` (every enabled role when None), with their load."""
    conn = ctx.conn
    sessions = {str(r["role"]): r for r in session_rows.current_sessions(conn)}
    unread = item_rows.count_unread_by_role(conn)
    tasks = open_tasks_by_role(conn)
    return [
        Candidate(
            role=name,
            presence=derive(ctx, sessions.get(name)),
            open_items=unread.get(name, 0),
            open_tasks=tasks.get(name, 0),
        )
        for name, role in sorted(ctx.desk.roles.items())
        if role.enabled and (capability is None or capability in role.capabilities)
    ]


def route(ctx: DeskContext, capability: str) -> Routing:
    """Where work asked of ``capability`` goes now (``role`` None when no enabled role has it)."""
    problem = capability_problem(capability)
    if problem:
        raise InvalidValue("--capability", capability, problem)
    if not ctx.desk.roles:
        raise NoRoles()
    return choose(capability, candidates(ctx, capability))


def holder_for_unroutable(ctx: DeskContext) -> str:
    """The enabled role whose ledger holds an unroutable request (the most available one):
    a help request needs a role for its channels and silences; it never wakes that role."""
    found = choose("any", candidates(ctx, None))
    if found.role is None:
        raise NoRoles()
    return found.role


def page_unroutable(
    ctx: DeskContext, routing: Routing, *, what: str, title: str, body: str
) -> dict[str, Any]:
    """Ask a person to route work no enabled role can take; returns the help request's ids."""
    from deskd.service.help import raise_help

    holder = holder_for_unroutable(ctx)
    known = declared_capabilities(ctx)
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
    )
    return {**out, "unroutable": routing.capability, "held_by": holder}


def enqueue_by_capability(ctx: DeskContext, item: NewItem, capability: str) -> dict[str, Any]:
    """Enqueue ``item`` for the most available role with ``capability``; when none has it,
    a person is paged to route it (the item is then the help request's text)."""
    from deskd.service.inbox import check_item, enqueue

    check_item(ctx, item)
    routing = route(ctx, capability)
    if routing.role is None:
        facts = f"(source {item.source}, priority {item.priority}" + (
            f", ref {item.ref})" if item.ref else ")"
        )
        body = f"{item.body}\n{facts}" if item.body else facts
        out = page_unroutable(ctx, routing, what="item", title=item.title, body=body)
        return {"id": out["item_id"], "deduped": False, "role": None, **_unroutable(out)}
    routed = replace(item, role=routing.role)
    item_id, deduped = enqueue(ctx, routed, routed=(capability, routing.why))
    return {"id": item_id, "deduped": deduped, "role": routing.role, "routed": routing.why}


def _unroutable(out: dict[str, Any]) -> dict[str, Any]:
    return {
        "routed": f"unroutable: {out['unroutable']}",
        "unroutable": out["unroutable"],
        "held_by": out["held_by"],
        "attempt_id": out["attempt_id"],
        "page_ids": out["page_ids"],
    }


def routed_work(
    ctx: DeskContext, *, role: str | None = None, limit: int = 50
) -> list[dict[str, Any]]:
    """Open work that capability routing placed, newest first, each with why (the board)."""
    from deskd.store.routing import routed_open_tasks, routed_unread_items

    found = [
        {
            "kind": kind,
            "id": int(r["id"]),
            "role": str(r["role"]),
            "title": str(r["title"]),
            "capability": str(r["capability"]),
            "why": str(r["routed_why"] or ""),
        }
        for kind, rows in (
            ("item", routed_unread_items(ctx.conn, limit=limit)),
            ("task", routed_open_tasks(ctx.conn, limit=limit)),
        )
        for r in rows
        if role is None or r["role"] == role
    ]
    return found[:limit]


def explain_lines(ctx: DeskContext, role: str) -> list[str]:
    """The part of `wake explain --role` that says why routed work came to ``role``."""
    return [
        f"{w['kind']} {w['id']} came by capability — {w['why']}"
        for w in routed_work(ctx, role=role)
        if not w["why"].startswith("unroutable")
    ] + [
        f"item {w['id']} holds unroutable work for a person: {w['title']}"
        for w in routed_work(ctx, role=role)
        if w["why"].startswith("unroutable")
    ]
