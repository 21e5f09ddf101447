"""Replies by email: each tick reads new mail in ``DESKD_REPLY_IMAP_URL`` and acts on the
page a reply answers (``ack``, ``snooze 2h``, ``resolve``, or text for the role's inbox).

A reply acts only when it comes from an address in ``[reply] from``, names its page in the
subject with the page's tag (``[deskd page N TAG]``, a MAC under the desk's link key: a
forged From with a guessed page number is not enough) and is a reply (``In-Reply-To``).
Mail that fails any of these is left unread and counted. The reply's ``Message-ID`` is
claimed in the same transaction as what it does, and the mail is marked seen only after: a
tick that dies in between acts once.
"""

from __future__ import annotations

import email
import email.policy
import hmac
from email.message import EmailMessage
from email.utils import parseaddr
from typing import Any

from deskd.core.paging import page_of_subject, read_reply
from deskd.core.values import SUPERVISOR
from deskd.service.desk import inbox
from deskd.service.desk.context import DeskContext
from deskd.service.engine.wake import ACK_TIMEOUT_S, act_on_page
from deskd.service.paging.links import link_key, reply_tag
from deskd.store.attempts import attempts_for_key
from deskd.store.items import claim_delivery
from deskd.store.pages import get_page

SOURCE = "reply-mail"
"""The deliveries table's source for emailed replies (their Message-IDs)."""


def read_replies(ctx: DeskContext) -> dict[str, Any]:
    """Act on new replies; counts of what was ``acted`` on, ``unmatched`` (no page),
    ``refused`` (a sender not in ``[reply] from``) and ``forged`` (a page's number with a tag
    missing or wrong), or the ``error`` reading the mailbox."""
    from deskd.adapters.imap import ERRORS, mailbox

    counts: dict[str, Any] = {"acted": 0, "unmatched": 0, "refused": 0, "forged": 0}
    try:
        with mailbox(ctx.settings.reply_imap_url or "") as box:
            for uid, raw in box.unseen():
                message = email.message_from_bytes(raw, policy=email.policy.default)
                try:
                    outcome = act_on_reply(ctx, message)
                # One unreadable mail, or an attempt that closed meanwhile, must not stop
                # every tick: it is left unread for a person.
                except Exception:
                    outcome = "unmatched"
                counts[outcome] += 1
                if outcome == "acted":
                    box.mark_seen(uid)
    except ERRORS as exc:  # an unreachable mailbox is reported; the tick goes on
        counts["error"] = f"reply mailbox: {exc}"
    return counts


def act_on_reply(ctx: DeskContext, message: EmailMessage) -> str:
    sender = parseaddr(str(message.get("From", "")))[1].lower()
    if sender not in {a.lower() for a in ctx.desk.data.reply.from_}:
        return "refused"
    token = page_of_subject(str(message.get("Subject", "")))
    if token is None or not message.get("In-Reply-To"):
        return "unmatched"
    page_id, tag = token
    if not hmac.compare_digest(tag, reply_tag(link_key(ctx.settings), page_id)):
        return "forged"
    page = get_page(ctx.conn, page_id)
    if page is None:
        return "unmatched"
    part = message.get_body(preferencelist=("plain",))
    reply = read_reply(part.get_content() if part is not None else "")
    delivery = str(message.get("Message-ID") or f"{sender}:{page_id}:{message.get('Date')}")
    ctx.actor = f"{SUPERVISOR} ({sender} by email)"
    with ctx.write() as conn:
        if not claim_delivery(conn, source=SOURCE, delivery=delivery, now=ctx.now):
            return "acted"  # acted on before the tick that read it died: mark it seen now
        pending = [a for a in attempts_for_key(conn, page.key, limit=5) if a.outcome == "pending"]
        if reply.action == "text":
            said = (
                f"{reply.text}\n\n(emailed by {sender}, replying to page {page.id}: {page.title})"
            )
            title = (reply.text.splitlines() or ["(empty reply)"])[0][: inbox.MAX_TITLE]
            item = inbox.NewItem(
                role=page.role,
                source=SUPERVISOR,
                title=title,
                body=said[: inbox.MAX_BODY],
                ref=f"page:{page.id}",
                priority="high",
                sender=sender,
            )
            inbox.validate_text(item.title, item.body)
            item_id, _ = inbox.insert(conn, item, now=ctx.now)
            outcome = f"item {item_id}"
        elif not pending:
            outcome = f"{reply.action}: nothing pending"
        else:
            attempt = pending[0]
            act_on_page(
                ctx,
                page,
                reply.action,
                attempt.id,
                f"by email from {sender}",
                snooze_s=reply.seconds or ACK_TIMEOUT_S,
            )
            outcome = f"{reply.action} attempt {attempt.id}"
        detail = {"action": reply.action, "outcome": outcome}
        ctx.event(
            conn, "page.replied", f"page:{page.id}", role=page.role, actor=ctx.actor, detail=detail
        )
    return "acted"
