"""Capability routing, the reading half: which enabled role is most available for a
capability (core/routing.py ranks). Why routed work went where it did is
service/desk/routed.py (the board reads it without the ranking's records).

The writing half — enqueueing or assigning through it, and paging a person when no role
can take the work — is service/ops/routing.py.
"""

from __future__ import annotations

from deskd.core.routing import Candidate, Routing, capability_problem, choose
from deskd.errors import InvalidValue, NoRoles
from deskd.service.desk.context import DeskContext
from deskd.service.desk.presence import derive
from deskd.store import items as item_rows
from deskd.store import sessions as session_rows
from deskd.store.routing import open_tasks_by_role


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
