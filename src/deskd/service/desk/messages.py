"""``deskd send``: one message from a role to others — one item per recipient."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from deskd.core.values import priority_rank
from deskd.errors import InvalidValue
from deskd.service.desk.context import DeskContext
from deskd.service.desk.identity import known_role
from deskd.service.desk.inbox import NewItem, insert, sla_seconds, validate_text
from deskd.store.events import add_event


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
    priority_rank(priority)
    sla_seconds(priority, sla)
    validate_text(subject, body)
    message_id = "msg-" + uuid.uuid4().hex[:16]
    created: list[tuple[int, str]] = []
    with ctx.write() as conn:
        for name in recipients:
            item = NewItem(
                role=name,
                source="message",
                title=subject,
                body=body,
                ref=f"message:{message_id}",
                priority=priority,
                sla=sla,
                sender=sender,
                message_id=message_id,
            )
            item_id, _ = insert(conn, item, now=ctx.now)
            created.append((item_id, name))
        add_event(
            conn,
            at=ctx.now,
            kind="message.sent",
            role=sender,
            actor=sender,
            subject=message_id,
            detail={"to": recipients, "items": [i for i, _ in created]},
        )
    return message_id, created
