"""Meetings and their attendees (store/meetings.py); the timeline is meeting_events.py and
the items a meeting wrote meeting_items.py, each built only when a row of it is read."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Meeting:
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Attendee:
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
