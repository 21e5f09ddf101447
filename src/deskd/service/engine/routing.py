"""Capability routing, the writing half: enqueue an item or assign a task to the most
available role with a capability (service/desk/routing.py picks it), or page a person when
no enabled role has it — the work is never dropped: a person decides where it goes.
"""

from __future__ import annotations

import json
from typing import Any, TypedDict, cast

from deskd.core.routing import Routing
from deskd.core.timeparse import iso_utc
from deskd.core.values import priority_rank
from deskd.service.desk.context import DeskContext
from deskd.service.desk.inbox import MAX_BODY, NewItem, check_item, enqueue, validate_text
from deskd.service.desk.routing import declared_capabilities, holder_for_unroutable, route
from deskd.service.engine.help import raise_help
from deskd.service.work.tasks import actor, add_task, due_ms


class PassedOver(TypedDict):
    role: str
    why: str


class Unrouted(TypedDict):
    """What every answer for unroutable work says: the capability, who holds the work, and
    the help request's attempt and pages."""

    routed: str
    unroutable: str
    held_by: str
    attempt_id: int | None
    page_ids: list[int]


class UnroutedItem(Unrouted):
    id: int
    deduped: bool
    role: None


class RoutedItem(TypedDict):
    """`inbox enqueue --capability --json`: the item, the role chosen and why."""

    id: int
    deduped: bool
    role: str
    routed: str
    passed_over: list[PassedOver]


class UnroutedTask(Unrouted):
    id: None
    role: None
    help_item_id: int


class RoutedTask(TypedDict):
    """`task add --capability --json`: the task as `task add` answers, and who was passed over."""

    id: int
    role: str
    status: str
    priority: str
    routed: str
    passed_over: list[PassedOver]


def page_unroutable(
    ctx: DeskContext,
    routing: Routing,
    *,
    what: str,
    title: str,
    body: str,
    priority: str,
    held: dict[str, Any],
) -> tuple[int, Unrouted]:
    """Ask a person to route work no enabled role can take, at the work's own priority;
    returns the help request's item id and what the answer says of it. The work is kept with the request: the first executing
    tick after a role gains the capability routes it there (service/work/held_work.py)."""
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
        priority=priority,
        held_work=json.dumps({"what": what, **held}),
    )
    unrouted: Unrouted = {
        "routed": f"unroutable: {routing.capability}",
        "unroutable": routing.capability,
        "held_by": holder,
        "attempt_id": out["attempt_id"],
        "page_ids": out["page_ids"],
    }
    return out["item_id"], unrouted


def enqueue_by_capability(
    ctx: DeskContext, item: NewItem, capability: str
) -> RoutedItem | UnroutedItem:
    """Enqueue ``item`` for the most available role with ``capability``; when none has it,
    a person is paged to route it (the item is then the help request's text)."""
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


def passed_over(routing: Routing) -> list[PassedOver]:
    """Each capable role routing passed over because it cannot work now, and why."""
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
) -> RoutedTask | UnroutedTask:
    """Assign a task to the most available role with ``capability``; when none has it, a
    person is paged to assign it (no task is created until then)."""
    actor(ctx, by)
    validate_text(title, detail)
    priority_rank(priority)
    due_at = due_ms(ctx, due)
    routing = route(ctx, capability)
    if routing.role is None:
        facts = f"(priority {priority}" + (f", due {due})" if due else ")")
        held = {
            "title": title,
            "detail": detail,
            "priority": priority,
            "due": iso_utc(due_at) if due_at is not None else None,
            "by": by,
        }
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
    added = add_task(
        ctx,
        title=title,
        role=routing.role,
        priority=priority,
        due=due,
        detail=detail,
        by=by,
        routed=(capability, routing.why),
    )
    return cast("RoutedTask", {**added, "passed_over": passed_over(routing)})
