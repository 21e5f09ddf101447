"""What only the supervisor console reads or writes: burned nonces, sessions, the login
throttle, how each supervisor action was authenticated, and the read-only views a person
browses (a meeting's transcript, the event log)."""

from __future__ import annotations

from typing import Literal

from deskd.core.records import Attempt
from deskd.store.dialect import Connection, Row
from deskd.store.query import select_where
from deskd.store.records import records_of
from deskd.store.records.wakes import Page

MeetingTable = Literal["meeting_messages", "meeting_obligations"]


def burn_nonce(conn: Connection, nonce: str, *, key_id: str, now: int) -> bool:
    """Record ``nonce`` as used; False when it was used before (a replay)."""
    cur = conn.execute(
        "INSERT INTO console_nonces (nonce, key_id, seen_at) VALUES (?, ?, ?) "
        "ON CONFLICT(nonce) DO NOTHING",
        (nonce, key_id, now),
    )
    return cur.rowcount == 1


def forget_nonces(conn: Connection, *, before: int) -> int:
    """Delete nonces seen before ``before`` (older assertions are refused as stale anyway)."""
    return conn.execute("DELETE FROM console_nonces WHERE seen_at < ?", (before,)).rowcount


def add_session(conn: Connection, sid: str, *, generation: int, now: int, expires_at: int) -> int:
    """Record a new access-code session; its row id names it on /events."""
    row = conn.execute(
        "INSERT INTO console_sessions (sid, generation, created_at, expires_at) "
        "VALUES (?, ?, ?, ?) RETURNING id",
        (sid, generation, now, expires_at),
    ).fetchone()
    return int(row[0])


def session_row(conn: Connection, sid: str) -> Row | None:
    row: Row | None = conn.execute(
        "SELECT * FROM console_sessions WHERE sid = ?", (sid,)
    ).fetchone()
    return row


def revoke_session(conn: Connection, sid: str, *, now: int) -> None:
    conn.execute(
        "UPDATE console_sessions SET revoked_at = ? WHERE sid = ? AND revoked_at IS NULL",
        (now, sid),
    )


def forget_sessions(conn: Connection, *, before: int) -> int:
    """Delete sessions that expired before ``before`` (their cookies are refused anyway)."""
    return conn.execute("DELETE FROM console_sessions WHERE expires_at < ?", (before,)).rowcount


def meta(conn: Connection, name: str) -> str | None:
    row = conn.execute("SELECT value FROM console_meta WHERE name = ?", (name,)).fetchone()
    return None if row is None else str(row[0])


def set_meta(conn: Connection, name: str, value: str) -> None:
    conn.execute(
        "INSERT INTO console_meta (name, value) VALUES (?, ?) "
        "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        (name, value),
    )


def swap_meta(conn: Connection, name: str, *, old: str, new: str) -> int:
    """Replace ``name``'s value only while it is still ``old``; 0 when another writer
    changed it first (PostgreSQL re-reads the row after a concurrent update, so exactly one
    of two racing swaps wins)."""
    return conn.execute(
        "UPDATE console_meta SET value = ? WHERE name = ? AND value = ?", (new, name, old)
    ).rowcount


def throttle_row(conn: Connection, client: str) -> Row | None:
    row: Row | None = conn.execute(
        "SELECT * FROM console_throttle WHERE client = ?", (client,)
    ).fetchone()
    return row


def set_throttle(
    conn: Connection, client: str, *, failures: int, now: int, wait_until: int
) -> None:
    conn.execute(
        "INSERT INTO console_throttle (client, failures, last_failure_at, wait_until) "
        "VALUES (?, ?, ?, ?) ON CONFLICT (client) DO UPDATE SET failures = excluded.failures, "
        "last_failure_at = excluded.last_failure_at, wait_until = excluded.wait_until",
        (client, failures, now, wait_until),
    )


def clear_throttle(conn: Connection, client: str) -> None:
    conn.execute("DELETE FROM console_throttle WHERE client = ?", (client,))


def forget_throttles(conn: Connection, *, before: int) -> int:
    return conn.execute(
        "DELETE FROM console_throttle WHERE last_failure_at < ?", (before,)
    ).rowcount


def last_event_id(conn: Connection) -> int:
    row = conn.execute("SELECT MAX(id) FROM events").fetchone()
    return int(row[0] or 0)


def stamp_auth(conn: Connection, *, after: int, actor: str, auth: str) -> int:
    """Say how ``actor`` was authenticated on its events written after event ``after``."""
    return conn.execute(
        "UPDATE events SET auth = ? WHERE id > ? AND actor = ? AND auth IS NULL",
        (auth, after, actor),
    ).rowcount


def meeting_rows(conn: Connection, table: MeetingTable, meeting_id: int) -> list[Row]:
    """Every message of a meeting (its transcript) or reply obligation, oldest first."""
    sql = f"SELECT * FROM {table} WHERE meeting_id = ? ORDER BY id"  # table: never input
    return conn.execute(sql, (meeting_id,)).fetchall()


def recent_events(
    conn: Connection, *, role: str | None, actor: str | None, limit: int
) -> list[Row]:
    """The newest events, optionally of one role or by one actor."""
    return select_where(
        conn,
        "SELECT * FROM events",
        ("role = ?", role),
        ("actor = ?", actor),
        order="id DESC",
        limit=limit,
    ).fetchall()


def attempts_since(conn: Connection, role: str, *, since: int) -> list[Attempt]:
    """A role's attempts attempted at or after ``since``, or still live, oldest first."""
    rows = conn.execute(
        "SELECT * FROM attempts WHERE role = ? AND (attempted_at >= ? OR outcome = 'pending') "
        "ORDER BY id",
        (role, since),
    ).fetchall()
    return records_of(Attempt, rows)


def pages_of_role(conn: Connection, role: str, *, since: int) -> list[Page]:
    """A role's pages created at or after ``since``, oldest first."""
    rows = conn.execute(
        "SELECT * FROM pages WHERE role = ? AND created_at >= ? ORDER BY id", (role, since)
    ).fetchall()
    return records_of(Page, rows)
