"""Help requests (`deskd page --from R`) for the planner's snapshot (filled by the pager issue)."""

from __future__ import annotations

import sqlite3

from deskd.core.records import HelpRequest


def load_help_requests(conn: sqlite3.Connection, *, now: int) -> tuple[HelpRequest, ...]:
    return ()
