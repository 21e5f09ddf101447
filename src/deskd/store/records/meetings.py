"""Meetings, attendees, timelines, replies owed, proposals and votes
(store/meetings.py, meeting_messages.py)."""

from __future__ import annotations

from typing import NamedTuple


class MeetingRow(NamedTuple):
    """One meeting row: its agenda, budget, clocks, pause and close."""

    id: int
    agenda: str
    agenda_key: str
    caller: str
    priority: str
    state: str
    max_messages: int
    spent: int
    consensus_at: int
    idle_s: int
    reply_sla_s: int
    called_at: int
    last_activity_at: int
    wake_gen: int
    escalated_at: int | None
    paused_kind: str | None
    pause_reason: str | None
    paused_at: int | None
    paused_by: str | None
    closed_at: int | None
    resolution: str | None


class AttendeeRow(NamedTuple):
    """One role's place in one meeting."""

    meeting_id: int
    role: str
    status: str
    invite_gen: int
    invited_at: int
    invite_item_id: int | None
    checked_in_at: int | None
    left_at: int | None
    left_reason: str | None
    events_read_id: int


class MeetingEvent(NamedTuple):
    """A line of a meeting's timeline."""

    id: int
    meeting_id: int
    at: int
    kind: str
    role: str | None
    text: str


class ObligationRow(NamedTuple):
    """An open reply a debtor owes a creditor, with the first 200 characters of the message."""

    id: int
    meeting_id: int
    message_id: int
    debtor: str
    creditor: str
    due_at: int
    created_at: int
    body: str


class ProposalRow(NamedTuple):
    """A proposal to end a meeting with a resolution."""

    id: int
    meeting_id: int
    proposer: str
    resolution: str
    generation: int
    status: str
    opened_at: int
    closed_at: int | None
    rejected_by: str | None
    reject_reason: str | None
    reject_gen: int | None
    reject_item_id: int | None


class Confirmation(NamedTuple):
    """A role's confirm vote on a proposal."""

    proposal_id: int
    role: str
