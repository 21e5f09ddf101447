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

from collections.abc import Callable
from typing import TYPE_CHECKING, NotRequired, TypedDict, Unpack

from deskd.core.planner import plan as make_plan
from deskd.core.records import Plan
from deskd.core.values import DEFAULT_SLA_S, priority_rank
from deskd.routing.store import mark_item_routed
from deskd.service.desk.context import DeskContext
from deskd.service.desk.identity import acting_role, known_role
from deskd.service.desk.inbox import validate_text
from deskd.service.engine.snapshot import load_snapshot, policy_of
from deskd.service.paging.pager import PageReport, deliver_pages
from deskd.store.items import insert_item
from deskd.store.questions import insert_help_request

if TYPE_CHECKING:
    from deskd.store.dialect import Connection


class HelpRaised(TypedDict):
    """`deskd page --json`: the help request's item and key, its attempt (None when the
    planner only noted it), and the pages sent at once."""

    attempt_id: int | None
    item_id: int
    key: str
    page_ids: list[int]
    pages_sent: list[PageReport]
    note: str | None


def ask_for_help(ctx: DeskContext, *, role: str | None, title: str, body: str) -> HelpRaised:
    """Record a help request for ``role`` and page a person; returns its ids and what was sent."""
    name = acting_role(ctx, "--from", role)
    known_role(ctx, name)
    validate_text(title, body)
    return raise_help(ctx, role=name, title=title, body=body, actor=name)


class HelpFields(TypedDict):
    """A help request: ``role``'s ledger holds it; ``capability`` marks work that no enabled
    role could take (routing/service.py), which the page says instead, at the work's
    own ``priority`` (default high); ``held_work`` is that work (JSON), routed once a role can."""

    role: str
    title: str
    body: str
    actor: str
    capability: NotRequired[str | None]
    priority: NotRequired[str]
    held_work: NotRequired[str | None]


def raise_help(
    ctx: DeskContext,
    *,
    on_item: Callable[[Connection, int], None] | None = None,
    **fields: Unpack[HelpFields],
) -> HelpRaised:
    """The help request itself, planned and paged at once; ``on_item(conn, item_id)`` records
    what rides on the request (a question) in its transaction, before the page is composed."""
    with ctx.write() as conn:
        item_id = insert_help(conn, ctx, **fields)
        if on_item is not None:
            on_item(conn, item_id)
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
        from deskd.service.engine.record import record_plan

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


def insert_help(conn: Connection, ctx: DeskContext, **fields: Unpack[HelpFields]) -> int:
    """The help request's item and marker (``raise_help``'s, and a task whose check failed
    ``reopen_after`` times); the next plan pages a person. Returns the item's id."""
    role, title, capability = fields["role"], fields["title"], fields.get("capability")
    item_id, _ = insert_item(
        conn,
        role=role,
        source="system",
        priority=priority_rank(fields.get("priority", "high")),
        title=title,
        body=fields["body"],
        ref="help",
        dedup_key=None,
        now=ctx.now,
        sla_due_at=ctx.now + DEFAULT_SLA_S["urgent"] * 1000,
        sender=role if capability is None else None,
    )
    held_work = fields.get("held_work")
    insert_help_request(conn, item_id=item_id, role=role, now=ctx.now, held_work=held_work)
    if capability is not None:
        mark_item_routed(conn, item_id, capability=capability, why=f"unroutable: {capability}")
    ctx.event(
        conn,
        "help.requested",
        f"item:{item_id}",
        role=role,
        actor=fields["actor"],
        detail={"title": title, **({"unroutable": capability} if capability else {})},
    )
    return item_id
