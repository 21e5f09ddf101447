"""Retention (lesson 44): delete closed history older than a cutoff; never a live row.

``STEPS`` names, in the order they must run, each kind of closed row and the statement (or
statements) deleting the rows whose closing instant is before the cutoff (Unix ms, every
``?`` of a statement). Live rows are never candidates: unread items, pending attempts (and any
attempt a surviving row still references), unresolved pages, working or resting sessions
(and each role's current session row), unended pauses, active hooks. Run them inside one
write transaction (``delete_before``), pages before attempts.
"""

from __future__ import annotations

from collections.abc import Iterator

from deskd.store.dialect import Connection

_CLOSED_MEETINGS = (
    "SELECT id FROM meetings WHERE state = 'closed' AND closed_at IS NOT NULL AND closed_at < ?"
)

STEPS: dict[str, str | tuple[str, ...]] = {
    "pages": "DELETE FROM pages WHERE resolved_at IS NOT NULL AND resolved_at < ?",
    # Closed attempts resolved before the cutoff, unless still referenced. Kept: every
    # attempt that is not a candidate (pending, resolved after the cutoff, or with a launch
    # still planned or running), every attempt a remaining page points to, and —
    # transitively — every attempt a kept attempt supersedes or rides along with
    # (``supersedes``, ``primary_id``). So the foreign keys hold and a live attempt's climb
    # can still be replayed rung by rung. The statement starts with DELETE (not WITH) so
    # that sqlite3 reports its rowcount.
    "attempts": (
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
        ") SELECT id FROM kept)"
    ),
    "items": "DELETE FROM items WHERE read_at IS NOT NULL AND read_at < ?",
    # Each role's latest hand-off stays: a fresh session starts from it.
    "handoffs": (
        "DELETE FROM handoffs WHERE created_at < ? "
        "AND id NOT IN (SELECT MAX(id) FROM handoffs GROUP BY role)"
    ),
    # Ended or superseded sessions, except each role's current row (so a role offline for a
    # long time still reads ``offline``, not ``never``) and those a hand-off names.
    "sessions": (
        "DELETE FROM sessions WHERE state IN ('ended', 'superseded') "
        "AND ended_at IS NOT NULL AND ended_at < ? "
        "AND id NOT IN (SELECT COALESCE("
        "MAX(CASE WHEN state IN ('working', 'resting') THEN id END), MAX(id)) "
        "FROM sessions GROUP BY role) "
        "AND id NOT IN (SELECT session_id FROM handoffs WHERE session_id IS NOT NULL)"
    ),
    "task_notes": (
        "DELETE FROM task_notes WHERE task_id IN "
        "(SELECT id FROM tasks WHERE closed_at IS NOT NULL AND closed_at < ?)"
    ),
    # Done or cancelled tasks, after their notes.
    "tasks": "DELETE FROM tasks WHERE closed_at IS NOT NULL AND closed_at < ?",
    "meeting_votes": (
        "DELETE FROM meeting_votes WHERE proposal_id IN "
        f"(SELECT id FROM meeting_proposals WHERE meeting_id IN ({_CLOSED_MEETINGS}))"
    ),
    # A closed meeting's proposals, obligations, events, messages and attendees, children
    # first (one statement per table keeps each foreign key satisfied).
    "meeting_parts": tuple(
        f"DELETE FROM {table} WHERE meeting_id IN ({_CLOSED_MEETINGS})"
        for table in (
            "meeting_proposals",
            "meeting_obligations",
            "meeting_events",
            "meeting_messages",
            "meeting_attendees",
        )
    ),
    # Their parts went first. Paused meetings stay: they can still end by the handshake.
    "meetings": (
        "DELETE FROM meetings WHERE state = 'closed' AND closed_at IS NOT NULL AND closed_at < ?"
    ),
    # Silences ended by hand or expired before the cutoff.
    "silences": "DELETE FROM silences WHERE COALESCE(ended_at, until_at) < ?",
    "pauses": "DELETE FROM pauses WHERE ended_at IS NOT NULL AND ended_at < ?",
    # Done, cancelled or disabled hooks whose last sign of life (created, last fired,
    # ``until``) is before the cutoff: hooks have no closing timestamp of their own.
    "hooks": (
        "DELETE FROM hooks WHERE status IN ('done', 'cancelled', 'disabled') "
        "AND created_at < ? AND COALESCE(last_fire_at, 0) < ? AND COALESCE(until_at, 0) < ?"
    ),
    "events": "DELETE FROM events WHERE at < ?",
    # Delivery ids kept to refuse replays: a sender retries within hours, not months.
    "deliveries": "DELETE FROM deliveries WHERE received_at < ?",
}


def delete_before(conn: Connection, *, before: int) -> Iterator[tuple[str, int]]:
    """Run ``STEPS`` in order: (kind of row, how many went) as each step runs."""
    for name, step in STEPS.items():
        statements = (step,) if isinstance(step, str) else step
        yield (
            name,
            sum(conn.execute(sql, (before,) * sql.count("?")).rowcount for sql in statements),
        )
