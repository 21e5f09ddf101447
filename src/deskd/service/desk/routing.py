"""Capability routing, the reading half: which enabled role is most available for a
capability (core/routing.py ranks). Why routed work went where it did is
service/desk/routed.py (the board reads it without the ranking's records).

The writing half — enqueueing or assigning through it, and paging a person when no role
can take the work — is service/engine/routing.py.
"""

from __future__ import annotations

from deskd.core.routing import Candidate, Routing, capability_problem, choose
from deskd.errors import InvalidValue, NoRoles
from deskd.service.desk.context import DeskContext
from deskd.service.desk.presence import derive
from deskd.service.desk.tick_overdue import is_overdue, overdue_after_s
from deskd.store import items as item_rows
from deskd.store import sessions as session_rows
from deskd.store.hosts import list_hosts
from deskd.store.pauses import live_pauses
from deskd.store.routing import open_tasks_by_role


def declared_capabilities(ctx: DeskContext) -> list[str]:
    """Every capability an enabled role of the desk declares, sorted."""
    return sorted({c for r in ctx.desk.roles.values() if r.enabled for c in r.capabilities})


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


def holder_for_unroutable(ctx: DeskContext) -> str:
    """The enabled role whose ledger holds an unroutable request (the most available one):
    a help request needs a role for its channels and silences; it never wakes that role."""
    found = choose("any", candidates(ctx, None))
    if found.role is None:
        raise NoRoles()
    return found.role
