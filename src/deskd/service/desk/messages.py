"""``deskd send``: one message from a role to others — one item per recipient."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence

from deskd.core.values import priority_rank
from deskd.errors import InvalidValue
from deskd.service.desk.context import DeskContext
from deskd.service.desk.identity import known_role
from deskd.service.desk.inbox import NewItem, insert, sla_seconds, validate_text


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
    recipients = known_recipients(ctx, to, "--to", "name at least one recipient role")
    if recipients == [sender]:
        raise InvalidValue("--to", sender, "a role cannot send a message to itself")
    recipients = [r for r in recipients if r != sender]
    message = NewItem("", "message", subject, body, priority=priority, sla=sla, sender=sender)
    message_id, inserted = deliver(
        ctx, recipients, message, id_prefix="msg-", event="message.sent", event_role=sender
    )
    return message_id, [(item_id, name) for item_id, name, _ in inserted]


def known_recipients(ctx: DeskContext, to: Sequence[str], what: str, hint: str) -> list[str]:
    """The roles in ``to``, each once and in order; refused unless there is one and all exist."""
    recipients = list(dict.fromkeys(to))
    if not recipients:
        raise InvalidValue(what, "", hint)
    for name in recipients:
        known_role(ctx, name)
    return recipients


def deliver(
    ctx: DeskContext,
    recipients: Sequence[str],
    message: NewItem,
    *,
    id_prefix: str,
    event: str,
    event_role: str | None,
    detail: Mapping[str, object] | None = None,
) -> tuple[str, list[tuple[int, str, bool]]]:
    """Check a ``message`` (an item for no role yet), then write one item per (known)
    recipient sharing a new message id, and its ``event``, in one transaction; returns
    (message id, [(item id, to, deduped)])."""
    priority_rank(message.priority)
    sla_seconds(message.priority, message.sla)
    validate_text(message.title, message.body)
    message_id = id_prefix + uuid.uuid4().hex[:16]
    sent = message._replace(ref=f"message:{message_id}", message_id=message_id)
    with ctx.write() as conn:
        inserted = []
        for name in recipients:
            item_id, deduped = insert(conn, sent._replace(role=name), now=ctx.now)
            inserted.append((item_id, name, deduped))
        said = {"to": list(recipients), "items": [i for i, _, _ in inserted], **(detail or {})}
        ctx.event(conn, event, message_id, role=event_role, actor=message.sender, detail=said)
    return message_id, inserted
