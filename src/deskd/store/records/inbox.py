"""Inbox items, as each reader selects them (store/items.py, routing/store.py); meeting
timelines and votes (store/meetings.py, meeting_messages.py). Meetings, attendees, replies owed
and proposals are the rules' records (core/meetings.py)."""

from __future__ import annotations

from typing import NamedTuple


class Item(NamedTuple):
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


class MeetingItem(NamedTuple):
    """An unread item a meeting wrote: which meeting (``ref``) and which message."""

    id: int
    ref: str | None
    message_id: str | None


class Routed(NamedTuple):
    """An item or task deskd routed to a role by capability, and why that role."""

    id: int
    role: str
    title: str
    capability: str
    routed_why: str | None


class MeetingEvent(NamedTuple):
    """A line of a meeting's timeline."""

    id: int
    meeting_id: int
    at: int
    kind: str
    role: str | None
    text: str


class Confirmation(NamedTuple):
    """A role's confirm vote on a proposal."""

    proposal_id: int
    role: str
