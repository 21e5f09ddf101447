"""The meetings part of the planner's snapshot (filled by the meetings issue)."""

from __future__ import annotations

import sqlite3

from deskd.core.records import MeetingWake
from deskd.desk import Desk


def load_meeting_views(
    conn: sqlite3.Connection, desk: Desk, *, now: int
) -> tuple[tuple[MeetingWake, ...], frozenset[int], frozenset[int]]:
    """(wakes owed to roles, paused-or-closed meeting ids, item ids whose meeting is not open)."""
    return (), frozenset(), frozenset()
