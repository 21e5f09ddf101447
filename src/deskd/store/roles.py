"""The roles table: seeded from the desk (the desk file wins), never deleted.

On the session hook's path: stdlib only, records built by ``query.lazy_records``.
"""

from __future__ import annotations

from collections.abc import Sequence

from deskd.store.query import lazy_records, marks

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; mypy reads it as True
if TYPE_CHECKING:
    from deskd.store.dialect import Connection
    from deskd.store.records.roles import RoleRow


def list_roles(conn: Connection) -> list[RoleRow]:
    return lazy_records(conn.execute("SELECT * FROM roles ORDER BY name"), "roles", "RoleRow")


def upsert_role(conn: Connection, *, name: str, title: str, enabled: bool, now: int) -> None:
    conn.execute(
        "INSERT INTO roles (name, title, enabled, in_desk, created_at, updated_at) "
        "VALUES (?, ?, ?, 1, ?, ?) "
        "ON CONFLICT(name) DO UPDATE SET title = excluded.title, enabled = excluded.enabled, "
        "in_desk = 1, updated_at = excluded.updated_at "
        "WHERE roles.title <> excluded.title OR roles.enabled <> excluded.enabled "
        "OR roles.in_desk = 0",
        (name, title, int(enabled), now, now),
    )


def disable_roles_not_in(conn: Connection, names: Sequence[str], *, now: int) -> int:
    """Disable every role the desk no longer names; their history stays."""
    named = marks(names) or "''"  # a desk naming no role: ``NOT IN ('')`` disables every one
    return conn.execute(
        f"UPDATE roles SET enabled = 0, in_desk = 0, updated_at = ? "
        f"WHERE in_desk = 1 AND name NOT IN ({named})",
        (now, *names),
    ).rowcount


def role_enabled(conn: Connection, name: str) -> bool | None:
    """Whether the role's row is enabled; None when the roles table has no such row."""
    row = conn.execute("SELECT enabled FROM roles WHERE name = ?", (name,)).fetchone()
    return None if row is None else bool(row[0])
