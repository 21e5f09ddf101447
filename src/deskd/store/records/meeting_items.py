"""An unread item a meeting wrote (store/meetings.py ``all_unread_meeting_items``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class MeetingItem:
    """An unread item a meeting wrote: which meeting (``ref``) and which message."""

    id: int
    ref: str | None
    message_id: str | None
