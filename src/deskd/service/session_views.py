"""Sessions due to wind down at the desk-day boundary (filled by the tasks/sessions issue)."""

from __future__ import annotations

import sqlite3

from deskd.core.records import RolloverDue
from deskd.desk import Desk


def load_rollovers(conn: sqlite3.Connection, desk: Desk, *, now: int) -> tuple[RolloverDue, ...]:
    return ()
