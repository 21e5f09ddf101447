"""Pages: a ledger row first (``queued``), sent after the tick commits, completed after."""

from __future__ import annotations

import sqlite3


def insert_page(
    conn: sqlite3.Connection,
    *,
    attempt_id: int,
    key: str,
    role: str,
    kind: str,
    priority: int,
    title: str,
    body: str,
    now: int,
) -> int:
    cur = conn.execute(
        "INSERT INTO pages (attempt_id, key, role, kind, priority, title, body, created_at, "
        "next_try_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (attempt_id, key, role, kind, priority, title, body, now, now),
    )
    return int(cur.lastrowid or 0)


def open_page_keys(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute(
        "SELECT DISTINCT key FROM pages WHERE resolved_at IS NULL AND kind = 'page'"
    ).fetchall()
    return {str(r[0]) for r in rows}


def resolve_pages_for_key(conn: sqlite3.Connection, key: str, *, now: int) -> int:
    """The demand is gone: close the key's open pages (retraction comes with the pager)."""
    cur = conn.execute(
        "UPDATE pages SET resolved_at = ?, "
        "status = CASE WHEN status IN ('queued', 'held') THEN 'resolved' ELSE status END "
        "WHERE key = ? AND resolved_at IS NULL",
        (now, key),
    )
    return cur.rowcount


def list_pages(conn: sqlite3.Connection, *, open_only: bool, limit: int) -> list[sqlite3.Row]:
    if open_only:
        return conn.execute(
            "SELECT * FROM pages WHERE resolved_at IS NULL ORDER BY id DESC LIMIT ?", (limit,)
        ).fetchall()
    return conn.execute("SELECT * FROM pages ORDER BY id DESC LIMIT ?", (limit,)).fetchall()


def notice_keys_since(conn: sqlite3.Connection, since: int) -> set[str]:
    """Notices (usage limits, daily caps) paged since ``since``: each is paged only once."""
    rows = conn.execute(
        "SELECT DISTINCT key FROM pages WHERE kind = 'notice' AND created_at >= ?", (since,)
    ).fetchall()
    return {str(r[0]) for r in rows}
