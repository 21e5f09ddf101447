"""Capability routing, the reading half: which enabled role is most available for a
capability (core/routing.py ranks), and why routed work went where it did.

The writing half — enqueueing or assigning through it, and paging a person when no role
can take the work — is service/ops/routing.py.
"""

from __future__ import annotations

from typing import Any

from deskd.core.routing import Candidate, Routing, capability_problem, choose
from deskd.errors import InvalidValue, NoRoles
from deskd.service.desk.context import DeskContext
from deskd.service.desk.presence import derive
from deskd.store import items as item_rows
from deskd.store import sessions as session_rows
from deskd.store.routing import open_tasks_by_role, routed_open_tasks, routed_unread_items


def declared_capabilities(ctx: DeskContext) -> list[str]:
    """Every capability an enabled role of the desk declares, sorted."""
    return sorted({c for r in ctx.desk.roles.values() if r.enabled for c in r.capabilities})


def candidates(ctx: DeskContext, capability: str | None) -> list[Candidate]:
    """Enabled roles with ``capability`` (every enabled role when None), with their load."""
    conn = ctx.conn
    sessions = {r.role: r for r in session_rows.current_sessions(conn)}
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


def routed_work(
    ctx: DeskContext, *, role: str | None = None, limit: int = 50
) -> list[dict[str, Any]]:
    """Open work that capability routing placed, newest first, each with why (the board)."""
    found = [
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
    return [
        f"{w['kind']} {w['id']} came by capability — {w['why']}"
        for w in routed_work(ctx, role=role)
        if not w["why"].startswith("unroutable")
    ] + [
        f"item {w['id']} holds unroutable work for a person: {w['title']}"
        for w in routed_work(ctx, role=role)
        if w["why"].startswith("unroutable")
    ]
