"""The roles table: seeded from the desk (the desk file wins), never deleted; and what the
session hook's SessionStart briefing reads: the roster and a role's open obligations.

On the session hook's path: stdlib only, a few indexed reads, records built by
``query.lazy_records``.
"""

from __future__ import annotations

from collections.abc import Sequence

from deskd.store.query import OPEN_SQL, lazy_records, marks

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; mypy reads it as True
if TYPE_CHECKING:
    from deskd.store.dialect import Connection, Row
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


# --- what the SessionStart briefing reads ---------------------------------------------------


def roster(conn: Connection) -> list[Row]:
    """Every enabled role with its title, by name."""
    return conn.execute("SELECT name, title FROM roles WHERE enabled = 1 ORDER BY name").fetchall()


def open_tasks_of(conn: Connection, role: str, *, limit: int) -> tuple[int, list[Row]]:
    """(how many open tasks the role has, the first ``limit``: urgent first, then oldest)."""
    count = conn.execute(
        f"SELECT COUNT(*) FROM tasks WHERE role = ? AND status IN {OPEN_SQL}", (role,)
    ).fetchone()[0]
    rows = conn.execute(
        f"SELECT id, title, priority, status FROM tasks WHERE role = ? AND status IN {OPEN_SQL} "
        "ORDER BY priority DESC, id LIMIT ?",
        (role, limit),
    ).fetchall()
    return int(count), rows


def meeting_debts(conn: Connection, role: str) -> tuple[int, int]:
    """(meetings the role is invited to and has not joined, open replies it owes in meetings)."""
    invited = conn.execute(
        "SELECT COUNT(*) FROM meeting_attendees AS a JOIN meetings AS m ON m.id = a.meeting_id "
        "WHERE a.role = ? AND a.status = 'invited' AND m.state != 'closed'",
        (role,),
    ).fetchone()[0]
    owed = conn.execute(
        "SELECT COUNT(*) FROM meeting_obligations WHERE debtor = ? AND status = 'open'", (role,)
    ).fetchone()[0]
    return int(invited), int(owed)
