"""Inbox items (store/items.py, meetings); the snapshot's unread rows are unread_items.py."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Item:
    """One inbox item addressed to a role."""

    id: int
    role: str
    message_id: str | None
    source: str
    sender: str | None
    priority: int
    title: str
    body: str
    ref: str | None
    dedup_key: str | None
    dedup_count: int
    enqueued_at: int
    sla_due_at: int
    notified_at: int | None
    seen_at: int | None
    shown_session: str | None
    read_at: int | None
    read_by: str | None
    capability: str | None
    """The capability the item was asked of (``--capability``); None when a role was named."""
    routed_why: str | None
