"""An unread item as the planner's snapshot reads it (store/items.py ``all_unread_items``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class UnreadItem:
    """The columns of an unread item the planner's snapshot reads (no body)."""

    id: int
    role: str
    priority: int
    source: str
    sender: str | None
    title: str
    ref: str | None
    enqueued_at: int
    sla_due_at: int
    notified_at: int | None
