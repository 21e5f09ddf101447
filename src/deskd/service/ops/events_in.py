"""Events in: a delivery ``POST``ed to ``/events/<source>`` becomes inbox items.

The source must be declared in the desk file (``[[events]]``) and the sender must prove it
knows the source's secret: a bearer token, or GitHub's HMAC of the body. Everything a
delivery does happens in one write transaction that first claims the sender's delivery id,
so a replay finds the claim and adds nothing, and a refusal writes nothing.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from deskd.config.desk import EventSource, expand_vars
from deskd.core.events_in import Incoming, PayloadRefused, incoming
from deskd.errors import InvalidValue
from deskd.routing.service import enqueue_by_capability
from deskd.service.desk import inbox
from deskd.service.desk.context import DeskContext
from deskd.service.ops.console import bearer_matches
from deskd.service.paging.channels import var_values
from deskd.store.items import claim_delivery, unread_by_dedup_key

MAX_EVENT_BYTES = 1024 * 1024
"""The largest body accepted (GitHub's issue and pull request payloads are tens of KB)."""


class EventRefused(Exception):
    """A delivery refused before anything is read from it: an HTTP status and why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def source_of(ctx: DeskContext, name: str) -> EventSource:
    """The declared source ``name``; 404 otherwise (the list is not shown to strangers)."""
    found = next((e for e in ctx.desk.data.events if e.source == name), None)
    if found is None:
        raise EventRefused(404, f"no event source {name!r} is declared ([[events]] in deskd.toml)")
    return found


def check_sender(
    ctx: DeskContext, source: EventSource, headers: dict[str, str], body: bytes
) -> str:
    """How the sender proved itself (for the audit); 401 when it did not. ``headers`` are
    lower-cased."""
    template = source.secret if source.kind == "github" else source.token
    key = expand_vars(template or "", var_values(ctx.settings))
    if not key:
        raise EventRefused(
            503, f"event source {source.source!r}: its {template} is not set (.env or environment)"
        )
    if source.kind == "github":
        mac = hmac.new(key.encode(), body, hashlib.sha256).hexdigest()
        given = headers.get("x-hub-signature-256", "")
        if not hmac.compare_digest(given.encode(), f"sha256={mac}".encode()):
            raise EventRefused(401, "missing or wrong X-Hub-Signature-256 (the webhook's secret)")
        return "GitHub signature"
    if not bearer_matches(headers.get("authorization", ""), key):
        raise EventRefused(401, f"send Authorization: Bearer <the token of {source.source!r}>")
    return "bearer token"


def receive(ctx: DeskContext, name: str, headers: dict[str, str], body: bytes) -> dict[str, Any]:
    """Act on one delivery to ``/events/<name>``: the items opened or acknowledged."""
    source = source_of(ctx, name)
    ctx.auth = check_sender(ctx, source, headers, body)
    ctx.actor = source.source
    try:
        one, note = incoming(source.kind, body, headers=headers, title=source.title)
    except PayloadRefused as exc:
        raise InvalidValue(f"{source.kind} payload", name, str(exc)) from None
    if one is None:
        return {"source": name, "done": [], "note": note}
    with ctx.write() as conn:
        return {"source": name, "done": [_act(ctx, conn, source, one)], "note": note}


def _act(ctx: DeskContext, conn: Any, source: EventSource, one: Incoming) -> dict[str, Any]:
    if one.delivery and not claim_delivery(
        conn, source=source.source, delivery=one.delivery, now=ctx.now
    ):
        return {"delivery": one.delivery, "duplicate": True}
    if one.action == "resolve":
        found = unread_by_dedup_key(conn, source=source.source, dedup_key=one.dedup_key or "")
        for role, item_id in found:
            inbox.ack(ctx, role, ids=[item_id], by=source.source)
        result: dict[str, Any] = {"acked": [{"id": i, "role": r} for r, i in found]}
    else:
        item = inbox.NewItem(
            role=source.for_ or "",
            source=source.source,
            title=" ".join(one.title.split())[: inbox.MAX_TITLE] or source.source,
            body=one.body[: inbox.MAX_BODY],
            ref=one.ref,
            priority=one.priority or source.priority,
            dedup_key=one.dedup_key,
        )
        if source.capability is not None:
            routed = enqueue_by_capability(ctx, item, source.capability)
            result = {"id": routed["id"], "role": routed["role"], "deduped": routed["deduped"]}
        else:
            item_id, deduped = inbox.enqueue(ctx, item)
            result = {"id": item_id, "role": item.role, "deduped": deduped}
    detail = {"delivery": one.delivery, "action": one.action, **result}
    ctx.event(conn, "event.received", source.source, actor=source.source, detail=detail)
    return {"delivery": one.delivery, "duplicate": False, **result}
