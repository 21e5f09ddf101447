"""What the session hook's SessionStart briefing reads: the roster and a role's open
obligations. On the session hook's path: stdlib only, a few indexed reads."""

from __future__ import annotations

from deskd.store.dialect import Connection, Row

OPEN_SQL = "('pending', 'in_progress', 'blocked')"
"""``deskd.store.tasks.OPEN_SQL``, repeated so the hook does not import that module."""


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
