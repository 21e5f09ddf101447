"""Help requests: the items agents created with ``deskd page --from R``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deskd.store.dialect import Sql
from deskd.store.records import records_of

if TYPE_CHECKING:
    from deskd.core.records import HelpRequest
    from deskd.store.dialect import Connection


def insert_help_request(
    conn: Connection, *, item_id: int, role: str, now: int, held_work: str | None = None
) -> None:
    conn.execute(
        "INSERT INTO help_requests (item_id, role, created_at, held_work) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (item_id) DO NOTHING",
        (item_id, role, now, held_work),
    )


def _over_unread(columns: str, where: str = "") -> Sql:
    """Help requests joined from the unread items: SQLite is told to walk ``items_unread``
    first (``INDEXED BY``, ``CROSS JOIN``); PostgreSQL plans the plain join that way itself."""
    rest = f"help_requests AS h WHERE h.item_id = i.id AND i.read_at IS NULL {where} ORDER BY i.id"
    return Sql(
        sqlite=f"SELECT {columns} FROM items AS i INDEXED BY items_unread CROSS JOIN {rest}",
        postgresql=f"SELECT {columns} FROM items AS i CROSS JOIN {rest}",
    )


def held_work(conn: Connection) -> list[tuple[int, str, str, str]]:
    """(item id, holder role, capability, work as JSON) of each open help request that holds
    work no role could take, oldest first."""
    rows = conn.execute(
        _over_unread("i.id, i.role, i.capability, h.held_work", "AND h.held_work IS NOT NULL")
    ).fetchall()
    return [(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]


def open_help_requests(conn: Connection) -> list[HelpRequest]:
    """Help requests whose item is still unread; walks unread items (``items_unread``) first,
    so the cost follows live rows, not the history of every request ever made."""
    from deskd.core.records import HelpRequest

    columns = "i.id AS item_id, i.role, i.title, i.body, i.enqueued_at, i.capability, i.priority"
    return records_of(HelpRequest, conn.execute(_over_unread(columns)))
