"""Pauses: a person stops launching and paging for the desk (role NULL) or one role."""

from __future__ import annotations

import sqlite3

from deskd.store.records import records_of
from deskd.store.records.roles import Pause


def live_pauses(conn: sqlite3.Connection) -> list[Pause]:
    rows = conn.execute("SELECT * FROM pauses WHERE ended_at IS NULL ORDER BY id")
    return records_of(Pause, rows)


def insert_pause(
    conn: sqlite3.Connection, *, role: str | None, reason: str, by: str, now: int
) -> int:
    cur = conn.execute(
        "INSERT INTO pauses (role, reason, started_at, started_by) VALUES (?, ?, ?, ?)",
        (role, reason, now, by),
    )
    return int(cur.lastrowid or 0)


def end_pauses(conn: sqlite3.Connection, *, role: str | None, by: str, now: int) -> int:
    cur = conn.execute(
        "UPDATE pauses SET ended_at = ?, ended_by = ? WHERE ended_at IS NULL AND role IS ?",
        (now, by, role),
    )
    return cur.rowcount
