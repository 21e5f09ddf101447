"""``deskd send``: one message from a role to others — one item per recipient."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from deskd.core.values import priority_rank
from deskd.errors import InvalidValue
from deskd.service.desk.context import DeskContext
from deskd.service.desk.identity import known_role
from deskd.service.desk.inbox import NewItem, insert, sla_seconds, validate_text
from deskd.store.dialect import Connection


def send(
    ctx: DeskContext,
    *,
    sender: str,
    to: Sequence[str],
    subject: str,
    body: str,
    priority: str = "normal",
    sla: str | None = None,
) -> tuple[str, list[tuple[int, str]]]:
    """Write the message as items sharing one ``message_id``; returns (message_id, [(id, to)]).

    The sender among several recipients is skipped (a message to the whole team from one of
    them is normal; the caller sees who got it); the sender as the only recipient is refused.
    """
    recipients = list(dict.fromkeys(to))
    if not recipients:
        raise InvalidValue("--to", "", "name at least one recipient role")
    for name in recipients:
        known_role(ctx, name)
    if recipients == [sender]:
        raise InvalidValue("--to", sender, "a role cannot send a message to itself")
    recipients = [r for r in recipients if r != sender]
    check_message(priority, sla, subject, body)
    message_id = "msg-" + uuid.uuid4().hex[:16]
    with ctx.write() as conn:
        inserted = insert_message(
            conn,
            recipients,
            message_id=message_id,
            source="message",
            sender=sender,
            title=subject,
            body=body,
            priority=priority,
            sla=sla,
            now=ctx.now,
        )
        created = [(item_id, name) for item_id, name, _ in inserted]
        ctx.event(
            conn,
            "message.sent",
            message_id,
            role=sender,
            actor=sender,
            detail={"to": recipients, "items": [i for i, _ in created]},
        )
    return message_id, created


def check_message(priority: str, sla: str | None, title: str, body: str) -> None:
    """Refuse a message's bad priority, SLA or text before anything is written."""
    priority_rank(priority)
    sla_seconds(priority, sla)
    validate_text(title, body)


def insert_message(
    conn: Connection,
    recipients: Sequence[str],
    *,
    message_id: str,
    source: str,
    sender: str,
    title: str,
    body: str,
    priority: str,
    sla: str | None,
    now: int,
) -> list[tuple[int, str, bool]]:
    """One item per recipient sharing ``message_id``; (item id, recipient, deduped) each."""
    created = []
    for name in recipients:
        item = NewItem(
            role=name,
            source=source,
            title=title,
            body=body,
            ref=f"message:{message_id}",
            priority=priority,
            sla=sla,
            sender=sender,
            message_id=message_id,
        )
        item_id, deduped = insert(conn, item, now=now)
        created.append((item_id, name, deduped))
    return created
