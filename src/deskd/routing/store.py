"""Capability routing's SQL: the open load per role it reads, why a role was chosen it writes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deskd.store.query import OPEN_SQL
from deskd.store.records import records_of
from deskd.store.records.inbox import Routed

if TYPE_CHECKING:
    from deskd.store.dialect import Connection


def open_tasks_by_role(conn: Connection) -> dict[str, int]:
    """Open (pending, in-progress, blocked) tasks per role."""
    rows = conn.execute(
        f"SELECT role, COUNT(*) FROM tasks WHERE status IN {OPEN_SQL} GROUP BY role"
    ).fetchall()
    return {str(r[0]): int(r[1]) for r in rows}


def mark_item_routed(conn: Connection, item_id: int, *, capability: str, why: str) -> None:
    conn.execute(
        "UPDATE items SET capability = ?, routed_why = ? WHERE id = ?", (capability, why, item_id)
    )


def mark_task_routed(conn: Connection, task_id: int, *, capability: str, why: str) -> None:
    conn.execute(
        "UPDATE tasks SET capability = ?, routed_why = ? WHERE id = ?", (capability, why, task_id)
    )


def routed_unread_items(conn: Connection, *, limit: int) -> list[Routed]:
    """Unread items that were routed by capability, newest first."""
    # ``+id``: through the partial index of unread items, not every item in id order.
    rows = conn.execute(
        "SELECT id, role, title, capability, routed_why FROM items "
        "WHERE read_at IS NULL AND capability IS NOT NULL ORDER BY +id DESC LIMIT ?",
        (limit,),
    )
    return records_of(Routed, rows)


def routed_open_tasks(conn: Connection, *, limit: int) -> list[Routed]:
    """Open tasks that were routed by capability, newest first."""
    rows = conn.execute(
        "SELECT id, role, title, capability, routed_why FROM tasks "
        f"WHERE status IN {OPEN_SQL} AND capability IS NOT NULL ORDER BY +id DESC LIMIT ?",
        (limit,),
    )
    return records_of(Routed, rows)
