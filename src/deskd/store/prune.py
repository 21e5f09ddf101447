"""Retention (lesson 44): delete closed history older than a cutoff; never a live row.

Each function deletes one kind of closed row whose closing instant is before ``before``
(Unix ms) and returns how many went. Live rows are never candidates: unread items, pending
attempts (and any attempt a surviving row still references), unresolved pages, working or
resting sessions (and each role's current session row), unended pauses, active hooks.
Run them inside one write transaction, pages before attempts.
"""

from __future__ import annotations

from deskd.store.dialect import Connection


def delete_read_items(conn: Connection, *, before: int) -> int:
    cur = conn.execute(
        "DELETE FROM items WHERE read_at IS NOT NULL AND read_at < ?",
        (before,),
    )
    return cur.rowcount


def delete_resolved_pages(conn: Connection, *, before: int) -> int:
    cur = conn.execute(
        "DELETE FROM pages WHERE resolved_at IS NOT NULL AND resolved_at < ?",
        (before,),
    )
    return cur.rowcount


def delete_closed_attempts(conn: Connection, *, before: int) -> int:
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


def delete_old_events(conn: Connection, *, before: int) -> int:
    cur = conn.execute("DELETE FROM events WHERE at < ?", (before,))
    return cur.rowcount


def delete_ended_sessions(conn: Connection, *, before: int) -> int:
    """Ended or superseded sessions, except each role's current row (so a role that has
    been offline for a long time still reads ``offline``, not ``never``)."""
    cur = conn.execute(
        "DELETE FROM sessions WHERE state IN ('ended', 'superseded') "
        "AND ended_at IS NOT NULL AND ended_at < ? "
        "AND id NOT IN (SELECT COALESCE("
        "MAX(CASE WHEN state IN ('working', 'resting') THEN id END), MAX(id)) "
        "FROM sessions GROUP BY role) "
        "AND id NOT IN (SELECT session_id FROM handoffs WHERE session_id IS NOT NULL)",
        (before,),
    )
    return cur.rowcount


def delete_old_handoffs(conn: Connection, *, before: int) -> int:
    """Hand-offs written before the cutoff, except each role's latest (a fresh session
    starts from it)."""
    cur = conn.execute(
        "DELETE FROM handoffs WHERE created_at < ? "
        "AND id NOT IN (SELECT MAX(id) FROM handoffs GROUP BY role)",
        (before,),
    )
    return cur.rowcount


def delete_closed_task_notes(conn: Connection, *, before: int) -> int:
    cur = conn.execute(
        "DELETE FROM task_notes WHERE task_id IN "
        "(SELECT id FROM tasks WHERE closed_at IS NOT NULL AND closed_at < ?)",
        (before,),
    )
    return cur.rowcount


def delete_closed_tasks(conn: Connection, *, before: int) -> int:
    """Done or cancelled tasks closed before the cutoff (run after their notes)."""
    cur = conn.execute("DELETE FROM tasks WHERE closed_at IS NOT NULL AND closed_at < ?", (before,))
    return cur.rowcount


_CLOSED_MEETINGS = (
    "SELECT id FROM meetings WHERE state = 'closed' AND closed_at IS NOT NULL AND closed_at < ?"
)


def delete_closed_meeting_votes(conn: Connection, *, before: int) -> int:
    cur = conn.execute(
        "DELETE FROM meeting_votes WHERE proposal_id IN (SELECT id FROM meeting_proposals "
        f"WHERE meeting_id IN ({_CLOSED_MEETINGS}))",
        (before,),
    )
    return cur.rowcount


def delete_closed_meeting_parts(conn: Connection, *, before: int) -> int:
    """A closed meeting's proposals, obligations, events, messages and attendees, children
    first (one statement per table keeps each foreign key satisfied)."""
    total = 0
    for table in (
        "meeting_proposals",
        "meeting_obligations",
        "meeting_events",
        "meeting_messages",
        "meeting_attendees",
    ):
        cur = conn.execute(
            f"DELETE FROM {table} WHERE meeting_id IN ({_CLOSED_MEETINGS})", (before,)
        )
        total += cur.rowcount
    return total


def delete_closed_meetings(conn: Connection, *, before: int) -> int:
    """Meetings closed before the cutoff (their parts went first). Paused ones stay: they
    can still end by the handshake."""
    cur = conn.execute(
        "DELETE FROM meetings WHERE state = 'closed' AND closed_at IS NOT NULL AND closed_at < ?",
        (before,),
    )
    return cur.rowcount


def delete_ended_silences(conn: Connection, *, before: int) -> int:
    """Silences ended by hand or expired before the cutoff."""
    cur = conn.execute("DELETE FROM silences WHERE COALESCE(ended_at, until_at) < ?", (before,))
    return cur.rowcount


def delete_ended_pauses(conn: Connection, *, before: int) -> int:
    cur = conn.execute(
        "DELETE FROM pauses WHERE ended_at IS NOT NULL AND ended_at < ?",
        (before,),
    )
    return cur.rowcount


def delete_finished_hooks(conn: Connection, *, before: int) -> int:
    """Done, cancelled or disabled hooks whose last sign of life (created, last fired,
    ``until``) is before the cutoff. Hooks have no closing timestamp of their own."""
    cur = conn.execute(
        "DELETE FROM hooks WHERE status IN ('done', 'cancelled', 'disabled') "
        "AND created_at < ? AND COALESCE(last_fire_at, 0) < ? AND COALESCE(until_at, 0) < ?",
        (before, before, before),
    )
    return cur.rowcount
