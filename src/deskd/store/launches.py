"""The launch rows the operator verbs read (`deskd wait`)."""

from __future__ import annotations

import sqlite3

from deskd.store.records import maybe_record
from deskd.store.records.wakes import Attempt


def newest_launch(conn: sqlite3.Connection, role: str) -> Attempt | None:
    """The role's most recently launched primary attempt (None when it never launched)."""
    row = conn.execute(
        "SELECT * FROM attempts INDEXED BY attempts_launched WHERE role = ? "
        "AND launched_at IS NOT NULL AND primary_id IS NULL ORDER BY launched_at DESC, id DESC "
        "LIMIT 1",
        (role,),
    ).fetchone()
    return maybe_record(Attempt, row)


def launches_in_flight(conn: sqlite3.Connection, role: str) -> int:
    """Planned or running launches of the role."""
    row = conn.execute(
        "SELECT COUNT(*) FROM attempts WHERE role = ? AND launch_status IN ('planned', 'running')",
        (role,),
    ).fetchone()
    return int(row[0])
