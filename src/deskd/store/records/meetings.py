"""Meeting timelines and votes (store/meetings.py, meeting_messages.py); meetings, attendees,
replies owed and proposals are the rules' records (core/meetings.py)."""

from __future__ import annotations

from typing import NamedTuple


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
