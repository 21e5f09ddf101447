"""Work held for a person because no role had its capability (service/engine/routing.py holds
it with the help request), routed by the executing tick once a role gains the capability.

Apart from the routing module: every executing tick asks, and on a desk with nothing held
that is one indexed read and no import of the routing, inbox or task services.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from deskd.errors import DeskdError
from deskd.service.desk.context import DeskContext
from deskd.store.questions import held_work

if TYPE_CHECKING:
    from deskd.core.routing import Routing


def route_held_work(ctx: DeskContext) -> int:
    """Route each piece of held work to the role that now has its capability, one transaction
    each; returns how many moved. The help request is acked, so this tick's plan resolves its
    wake and settles the page; a ``routing.rerouted`` event says where it went and why."""
    held = held_work(ctx.conn) if ctx.desk.roles else []
    if not held:  # the usual tick: one indexed read, nothing imported
        return 0
    from deskd.service.desk.routing import route
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
    """Enqueue or assign held ``work`` to the role ``routing`` chose; its subject."""
    role, routed = str(routing.role), (routing.capability, routing.why)
    if work["what"] == "task":
        from deskd.service.work.tasks import add_task

        out = add_task(
            ctx,
            title=work["title"],
            role=role,
            priority=work["priority"],
            due=work["due"],
            detail=work["detail"],
            by=work["by"],
            routed=routed,
        )
        return f"task:{out['id']}"
    from deskd.service.desk.inbox import NewItem, enqueue

    item = NewItem(
        role=role,
        source=work["source"],
        title=work["title"],
        body=work["body"],
        priority=work["priority"],
        ref=work["ref"],
    )
    item_id, _ = enqueue(ctx, item, routed=routed)
    return f"item:{item_id}"
