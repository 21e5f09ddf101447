"""Help requests: the items agents created with ``deskd page --from R``."""

from __future__ import annotations

import sqlite3

from deskd.store.records import records_of
from deskd.store.records.inbox import HelpRequestRow


def insert_help_request(
    conn: sqlite3.Connection, *, item_id: int, role: str, now: int, held_work: str | None = None
) -> None:
    conn.execute(
        "INSERT INTO help_requests (item_id, role, created_at, held_work) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (item_id) DO NOTHING",
        (item_id, role, now, held_work),
    )


def held_work(conn: sqlite3.Connection) -> list[tuple[int, str, str, str]]:
    """(item id, holder role, capability, work as JSON) of each open help request that holds
    work no role could take, oldest first."""
    rows = conn.execute(
        "SELECT i.id, i.role, i.capability, h.held_work FROM items AS i INDEXED BY items_unread "
        "CROSS JOIN help_requests AS h ON h.item_id = i.id "
        "WHERE i.read_at IS NULL AND h.held_work IS NOT NULL ORDER BY i.id"
    ).fetchall()
    return [(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]


def open_help_requests(conn: sqlite3.Connection) -> list[HelpRequestRow]:
    """Help requests whose item is still unread; walks unread items (``items_unread``) first,
    so the cost follows live rows, not the history of every request ever made."""
    rows = conn.execute(
        "SELECT i.id, i.role, i.title, i.body, i.enqueued_at, i.capability, i.priority FROM items AS i INDEXED BY items_unread "
        "CROSS JOIN help_requests AS h ON h.item_id = i.id "
        "WHERE i.read_at IS NULL ORDER BY i.id"
    )
    return records_of(HelpRequestRow, rows)
