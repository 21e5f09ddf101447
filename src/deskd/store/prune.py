"""Retention (LESSONS 44): delete closed history older than a cutoff; never a live row.

Each function deletes one kind of closed row whose closing instant is before ``before``
(Unix ms) and returns how many went. Live rows are never candidates: unread items, pending
attempts (and any attempt a surviving row still references), unresolved pages, working or
resting sessions (and each role's current session row), unended pauses, active hooks.
Run them inside one write transaction, pages before attempts.
"""

from __future__ import annotations

import sqlite3


def delete_read_items(conn: sqlite3.Connection, *, before: int) -> int:
    cur = conn.execute(
        "DELETE FROM items WHERE read_at IS NOT NULL AND read_at < ?",
        (before,),
    )
    return cur.rowcount


def delete_resolved_pages(conn: sqlite3.Connection, *, before: int) -> int:
    cur = conn.execute(
        "DELETE FROM pages WHERE resolved_at IS NOT NULL AND resolved_at < ?",
        (before,),
    )
    return cur.rowcount


def delete_closed_attempts(conn: sqlite3.Connection, *, before: int) -> int:
    """Closed attempts resolved before the cutoff, unless still referenced.

    Kept: every attempt that is not a candidate (pending, resolved after the cutoff, or with
    a launch still planned or running), every attempt a remaining page points to, and —
    transitively — every attempt a kept attempt supersedes or rides along with
    (``supersedes``, ``primary_id``). So the foreign keys hold and a live attempt's climb
    can still be replayed rung by rung.
    """
    # The statement starts with DELETE (not WITH) so that sqlite3 reports its rowcount.
    cur = conn.execute(
        "DELETE FROM attempts WHERE id NOT IN ("
        "WITH RECURSIVE kept(id) AS ("
        " SELECT id FROM attempts WHERE NOT ("
        "  outcome != 'pending' AND resolved_at IS NOT NULL AND resolved_at < ?"
        "  AND COALESCE(launch_status, '') NOT IN ('planned', 'running'))"
        " UNION SELECT attempt_id FROM pages"
        " UNION SELECT ref.target FROM kept JOIN ("
        "  SELECT id, supersedes AS target FROM attempts WHERE supersedes IS NOT NULL"
        "  UNION ALL"
        "  SELECT id, primary_id AS target FROM attempts WHERE primary_id IS NOT NULL"
        " ) AS ref ON ref.id = kept.id"
        ") SELECT id FROM kept)",
        (before,),
    )
    return cur.rowcount


def delete_old_events(conn: sqlite3.Connection, *, before: int) -> int:
    cur = conn.execute("DELETE FROM events WHERE at < ?", (before,))
    return cur.rowcount


def delete_ended_sessions(conn: sqlite3.Connection, *, before: int) -> int:
    """Ended or superseded sessions, except each role's current row (so a role that has
    been offline for a long time still reads ``offline``, not ``never``)."""
    cur = conn.execute(
        "DELETE FROM sessions WHERE state IN ('ended', 'superseded') "
        "AND ended_at IS NOT NULL AND ended_at < ? "
        "AND id NOT IN (SELECT COALESCE("
        "MAX(CASE WHEN state IN ('working', 'resting') THEN id END), MAX(id)) "
        "FROM sessions GROUP BY role)",
        (before,),
    )
    return cur.rowcount


def delete_ended_pauses(conn: sqlite3.Connection, *, before: int) -> int:
    cur = conn.execute(
        "DELETE FROM pauses WHERE ended_at IS NOT NULL AND ended_at < ?",
        (before,),
    )
    return cur.rowcount


def delete_finished_hooks(conn: sqlite3.Connection, *, before: int) -> int:
    """Done, cancelled or disabled hooks whose last sign of life (created, last fired,
    ``until``) is before the cutoff. Hooks have no closing timestamp of their own."""
    cur = conn.execute(
        "DELETE FROM hooks WHERE status IN ('done', 'cancelled', 'disabled') "
        "AND MAX(created_at, COALESCE(last_fire_at, 0), COALESCE(until_at, 0)) < ?",
        (before,),
    )
    return cur.rowcount


def foreign_key_violations(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """``PRAGMA foreign_key_check``: empty on a consistent database."""
    return conn.execute("PRAGMA foreign_key_check").fetchall()
