"""A line of a meeting's timeline (store/meetings.py ``events_after``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class MeetingEvent:
    """A line of a meeting's timeline."""

    id: int
    meeting_id: int
    at: int
    kind: str
    role: str | None
    text: str
