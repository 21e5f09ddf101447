"""`deskd page --from R`: an agent asks a person for help.

The request is an item in the role's own ledger, marked as a help request; the ``help:<item>``
demand it raises starts at ``notify`` (it is owed by a person) and resolves when the item is
acked — by the role (`deskd inbox ack`) or by a person (`deskd wake ack` on its attempt).

Design: the item, its marker, and the planner's decision for that one key are written in
ONE transaction — the plan is computed on a snapshot read inside it, and only the help
key's attempt and page are recorded (other keys are the tick's business: no launches, no
closures). The page then goes out at once, outside the transaction, so the caller gets an
attempt id and a person hears of it without waiting for the next tick.
"""

from __future__ import annotations

from typing import Any

from deskd.core.planner import plan as make_plan
from deskd.core.records import Plan
from deskd.core.values import DEFAULT_SLA_S, priority_rank
from deskd.service.desk.context import DeskContext
from deskd.service.desk.identity import acting_role, known_role
from deskd.service.desk.inbox import validate_text
from deskd.service.engine.snapshot import load_snapshot, policy_of
from deskd.service.paging.pager import deliver_pages
from deskd.store.events import add_event
from deskd.store.help import insert_help_request
from deskd.store.items import insert_item


def ask_for_help(ctx: DeskContext, *, role: str | None, title: str, body: str) -> dict[str, Any]:
    """Record a help request for ``role`` and page a person; returns its ids and what was sent."""
    name = acting_role(ctx, "--from", role)
    known_role(ctx, name)
    validate_text(title, body)
    with ctx.write() as conn:
        item_id, _ = insert_item(
            conn,
            role=name,
            source="system",
            priority=priority_rank("high"),
            title=title,
            body=body,
            ref="help",
            dedup_key=None,
            now=ctx.now,
            sla_due_at=ctx.now + DEFAULT_SLA_S["urgent"] * 1000,
            sender=name,
        )
        insert_help_request(conn, item_id=item_id, role=name, now=ctx.now)
        add_event(
            conn,
            at=ctx.now,
            kind="help.requested",
            role=name,
            actor=name,
            subject=f"item:{item_id}",
            detail={"title": title},
        )
        key = f"help:{item_id}"
        full = make_plan(
            load_snapshot(conn, ctx.desk, now=ctx.now), now=ctx.now, policy=policy_of(ctx.desk)
        )
        only = Plan(
            now=full.now,
            demands=tuple(d for d in full.demands if d.key == key),
            attempts=tuple(a for a in full.attempts if a.key == key),
            pages=tuple(p for p in full.pages if p.key == key and p.notice_key is None),
        )
        from deskd.service.engine.tick import record_plan

        ids, page_ids = record_plan(conn, only, now=ctx.now)
    sent = deliver_pages(ctx, only=page_ids) if page_ids else []
    note = next((n.text for n in full.notes if n.key == key), None)
    return {
        "attempt_id": ids.get(key),
        "item_id": item_id,
        "key": key,
        "page_ids": page_ids,
        "pages_sent": sent,
        "note": note,
    }
