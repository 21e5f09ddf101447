"""What only the supervisor console reads or writes: burned nonces and the read-only views a person browses (a meeting's transcript, the event log)."""

from __future__ import annotations

import sqlite3

TYPE_CHECKING = False  # as in store/attempts.py: records load lazily; mypy reads it as True
if TYPE_CHECKING:
    from deskd.store.records.attempts import Attempt
    from deskd.store.records.pages import Page


def burn_nonce(conn: sqlite3.Connection, nonce: str, *, key_id: str, now: int) -> bool:
    """Record ``nonce`` as used; False when it was used before (a replay)."""
    cur = conn.execute(
        "INSERT INTO console_nonces (nonce, key_id, seen_at) VALUES (?, ?, ?) "
        "ON CONFLICT(nonce) DO NOTHING",
        (nonce, key_id, now),
    )
    return cur.rowcount == 1


def forget_nonces(conn: sqlite3.Connection, *, before: int) -> int:
    """Delete nonces seen before ``before`` (older assertions are refused as stale anyway)."""
    return conn.execute("DELETE FROM console_nonces WHERE seen_at < ?", (before,)).rowcount


def meeting_messages(conn: sqlite3.Connection, meeting_id: int) -> list[sqlite3.Row]:
    """Every message of a meeting, oldest first (its transcript)."""
    return conn.execute(
        "SELECT * FROM meeting_messages WHERE meeting_id = ? ORDER BY id", (meeting_id,)
    ).fetchall()


def meeting_obligations(conn: sqlite3.Connection, meeting_id: int) -> list[sqlite3.Row]:
    """Every reply obligation of a meeting, open and closed, oldest first."""
    return conn.execute(
        "SELECT * FROM meeting_obligations WHERE meeting_id = ? ORDER BY id", (meeting_id,)
    ).fetchall()


def recent_events(
    conn: sqlite3.Connection, *, role: str | None, actor: str | None, limit: int
) -> list[sqlite3.Row]:
    """The newest events, optionally of one role or by one actor."""
    where = ["1 = 1"]
    params: list[object] = []
    if role is not None:
        where.append("role = ?")
        params.append(role)
    if actor is not None:
        where.append("actor = ?")
        params.append(actor)
    params.append(limit)
    return conn.execute(
        f"SELECT * FROM events WHERE {' AND '.join(where)} ORDER BY id DESC LIMIT ?", params
    ).fetchall()


def attempts_since(conn: sqlite3.Connection, role: str, *, since: int) -> list[Attempt]:
    """A role's attempts attempted at or after ``since``, or still live, oldest first."""
    from deskd.store.records import records_of
    from deskd.store.records.attempts import Attempt

    rows = conn.execute(
        "SELECT * FROM attempts WHERE role = ? AND (attempted_at >= ? OR outcome = 'pending') "
        "ORDER BY id",
        (role, since),
    ).fetchall()
    return records_of(Attempt, rows)


def pages_of_role(conn: sqlite3.Connection, role: str, *, since: int) -> list[Page]:
    """A role's pages created at or after ``since``, oldest first."""
    from deskd.store.records import records_of
    from deskd.store.records.pages import Page

    rows = conn.execute(
        "SELECT * FROM pages WHERE role = ? AND created_at >= ? ORDER BY id", (role, since)
    ).fetchall()
    return records_of(Page, rows)
