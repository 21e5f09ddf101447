"""Meetings, attendees, the meeting timeline and the items a meeting wrote (messages,
obligations, proposals and votes: store/meeting_messages.py).

One named function per statement. Live-meeting reads (the tick's snapshot) join through the
partial index ``meetings_live`` so their cost follows open meetings, not history.
"""

from __future__ import annotations

from collections.abc import Sequence

from deskd.core.meetings import Attendee, Meeting
from deskd.store.dialect import Connection, Sql
from deskd.store.query import marks, select_where
from deskd.store.records import maybe_record, records_of
from deskd.store.records.inbox import Item, MeetingEvent, MeetingItem

LIVE_MEETINGS = "SELECT id FROM meetings WHERE state != 'closed'"


# --- meetings ---------------------------------------------------------------------------------


def insert_meeting(
    conn: Connection,
    *,
    agenda: str,
    agenda_key: str,
    caller: str,
    priority: str,
    state: str,
    max_messages: int,
    consensus_at: int,
    idle_s: int,
    reply_sla_s: int,
    now: int,
) -> int | None:
    """A new meeting, or None when one with this agenda is already open (``meetings_open_agenda``)."""
    row = conn.execute(
        "INSERT INTO meetings (agenda, agenda_key, caller, priority, state, max_messages, "
        "consensus_at, idle_s, reply_sla_s, called_at, last_activity_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (agenda_key) WHERE state != 'closed' DO NOTHING RETURNING id",
        (
            agenda,
            agenda_key,
            caller,
            priority,
            state,
            max_messages,
            consensus_at,
            idle_s,
            reply_sla_s,
            now,
            now,
        ),
    ).fetchone()
    return None if row is None else int(row[0])


def open_meeting_by_agenda(conn: Connection, agenda_key: str) -> Meeting | None:
    row = conn.execute(
        "SELECT * FROM meetings WHERE agenda_key = ? AND state != 'closed'", (agenda_key,)
    ).fetchone()
    return maybe_record(Meeting, row)


def get_meeting(conn: Connection, meeting_id: int) -> Meeting | None:
    row = conn.execute("SELECT * FROM meetings WHERE id = ?", (meeting_id,)).fetchone()
    return maybe_record(Meeting, row)


def live_meetings(conn: Connection) -> list[Meeting]:
    """Every meeting not closed (waiting, active, consensus, closing, paused)."""
    rows = conn.execute("SELECT * FROM meetings WHERE state != 'closed' ORDER BY id")
    return records_of(Meeting, rows)


def list_meetings(
    conn: Connection, *, include_closed: bool, role: str | None, limit: int
) -> list[Meeting]:
    """Meetings newest first (open ones only unless ``include_closed``), optionally one role's."""
    rows = select_where(
        conn,
        "SELECT * FROM meetings",
        None if include_closed else "state != 'closed'",
        ("id IN (SELECT meeting_id FROM meeting_attendees WHERE role = ?)", role),
        order="id DESC",
        limit=limit,
    )
    return records_of(Meeting, rows)


def set_state(conn: Connection, meeting_id: int, state: str) -> None:
    conn.execute("UPDATE meetings SET state = ? WHERE id = ?", (state, meeting_id))


_TOUCH = Sql(  # a scalar MAX(a, b) is GREATEST(a, b) in PostgreSQL
    sqlite="UPDATE meetings SET last_activity_at = MAX(last_activity_at, ?) WHERE id = ?",
    postgresql="UPDATE meetings SET last_activity_at = GREATEST(last_activity_at, ?) WHERE id = ?",
)


def touch(conn: Connection, meeting_id: int, *, now: int) -> None:
    """Something happened in the meeting: its idle deadline starts again."""
    conn.execute(_TOUCH, (now, meeting_id))


def spend(conn: Connection, meeting_id: int) -> int:
    """Spend one message of the budget; returns how many are spent now."""
    row = conn.execute(
        "UPDATE meetings SET spent = spent + 1 WHERE id = ? RETURNING spent", (meeting_id,)
    ).fetchone()
    return int(row[0])


def next_generation(conn: Connection, meeting_id: int) -> int:
    """Hand out the meeting's next wake generation (a re-armed request, lesson 14)."""
    row = conn.execute(
        "UPDATE meetings SET wake_gen = wake_gen + 1 WHERE id = ? RETURNING wake_gen", (meeting_id,)
    ).fetchone()
    return int(row[0])


def pause(
    conn: Connection, meeting_id: int, *, kind: str, reason: str, by: str | None, now: int
) -> int:
    return conn.execute(
        "UPDATE meetings SET paused_kind = ?, pause_reason = ?, paused_by = ?, paused_at = ? "
        "WHERE id = ? AND paused_kind IS NULL AND closed_at IS NULL",
        (kind, reason, by, now, meeting_id),
    ).rowcount


def unpause(conn: Connection, meeting_id: int, *, now: int) -> int:
    return conn.execute(
        "UPDATE meetings SET paused_kind = NULL, pause_reason = NULL, paused_by = NULL, "
        "paused_at = NULL, last_activity_at = ? "
        "WHERE id = ? AND paused_kind IN ('idle', 'manual') AND closed_at IS NULL",
        (now, meeting_id),
    ).rowcount


def close(conn: Connection, meeting_id: int, *, resolution: str, now: int) -> int:
    return conn.execute(
        "UPDATE meetings SET state = 'closed', closed_at = ?, resolution = ? "
        "WHERE id = ? AND closed_at IS NULL",
        (now, resolution, meeting_id),
    ).rowcount


def mark_escalated(conn: Connection, meeting_id: int, *, generation: int, now: int) -> int:
    return conn.execute(
        "UPDATE meetings SET escalated_at = ?, wake_gen = ? "
        "WHERE id = ? AND escalated_at IS NULL AND closed_at IS NULL",
        (now, generation, meeting_id),
    ).rowcount


# --- attendees --------------------------------------------------------------------------------


def insert_attendee(
    conn: Connection,
    *,
    meeting_id: int,
    role: str,
    status: str,
    now: int,
    invite_item_id: int | None = None,
) -> None:
    conn.execute(
        "INSERT INTO meeting_attendees (meeting_id, role, status, invited_at, invite_item_id, "
        "checked_in_at) VALUES (?, ?, ?, ?, ?, ?)",
        (meeting_id, role, status, now, invite_item_id, now if status == "present" else None),
    )


def attendees_of(conn: Connection, meeting_id: int) -> list[Attendee]:
    rows = conn.execute(
        "SELECT * FROM meeting_attendees WHERE meeting_id = ? ORDER BY invited_at, role",
        (meeting_id,),
    )
    return records_of(Attendee, rows)


def live_attendees(conn: Connection) -> list[Attendee]:
    rows = conn.execute(
        f"SELECT * FROM meeting_attendees WHERE meeting_id IN ({LIVE_MEETINGS}) "
        "ORDER BY meeting_id, invited_at, role"
    )
    return records_of(Attendee, rows)


def check_in(conn: Connection, meeting_id: int, role: str, *, now: int) -> int:
    return conn.execute(
        "UPDATE meeting_attendees SET status = 'present', checked_in_at = ? "
        "WHERE meeting_id = ? AND role = ? AND status = 'invited'",
        (now, meeting_id, role),
    ).rowcount


def rearm_invitations(
    conn: Connection, meeting_id: int, roles: Sequence[str], *, generation: int
) -> int:
    if not roles:
        return 0
    return conn.execute(
        f"UPDATE meeting_attendees SET invite_gen = ? WHERE meeting_id = ? "
        f"AND status = 'invited' AND role IN ({marks(roles)})",
        (generation, meeting_id, *roles),
    ).rowcount


def leave(conn: Connection, meeting_id: int, role: str, *, reason: str, now: int) -> int:
    return conn.execute(
        "UPDATE meeting_attendees SET status = 'left', left_at = ?, left_reason = ? "
        "WHERE meeting_id = ? AND role = ? AND status != 'left'",
        (now, reason, meeting_id, role),
    ).rowcount


_EVENTS_READ = Sql(
    sqlite="UPDATE meeting_attendees SET events_read_id = MAX(events_read_id, ?) "
    "WHERE meeting_id = ? AND role = ?",
    postgresql="UPDATE meeting_attendees SET events_read_id = GREATEST(events_read_id, ?) "
    "WHERE meeting_id = ? AND role = ?",
)


def set_events_read(conn: Connection, meeting_id: int, role: str, event_id: int) -> None:
    conn.execute(_EVENTS_READ, (event_id, meeting_id, role))


# --- the meeting's timeline -------------------------------------------------------------------


def add_meeting_event(
    conn: Connection, *, meeting_id: int, at: int, kind: str, role: str | None, text: str
) -> int:
    cur = conn.execute(
        "INSERT INTO meeting_events (meeting_id, at, kind, role, text) VALUES (?, ?, ?, ?, ?) RETURNING id",
        (meeting_id, at, kind, role, text),
    )
    return int(cur.fetchone()[0])


def events_after(conn: Connection, meeting_id: int, after_id: int) -> list[MeetingEvent]:
    rows = conn.execute(
        "SELECT * FROM meeting_events WHERE meeting_id = ? AND id > ? ORDER BY id",
        (meeting_id, after_id),
    )
    return records_of(MeetingEvent, rows)


# --- the items a meeting wrote ----------------------------------------------------------------


def unread_meeting_items(conn: Connection, role: str, ref: str) -> list[Item]:
    """The role's unread items of one meeting (``ref`` = ``meeting:<id>``), oldest first."""
    rows = conn.execute(
        "SELECT * FROM items WHERE role = ? AND read_at IS NULL AND source = 'meeting' "
        "AND ref = ? ORDER BY enqueued_at, id",
        (role, ref),
    )
    return records_of(Item, rows)


def all_unread_meeting_items(conn: Connection) -> list[MeetingItem]:
    """(id, ref, message_id) of every unread meeting item (runs on ``items_unread``)."""
    rows = conn.execute(
        "SELECT id, ref, message_id FROM items WHERE read_at IS NULL AND source = 'meeting'"
    )
    return records_of(MeetingItem, rows)


def unread_items_of_messages(conn: Connection, role: str, message_ids: Sequence[str]) -> list[int]:
    """The role's unread items carrying one of these ``message_id`` values."""
    if not message_ids:
        return []
    rows = conn.execute(
        f"SELECT id FROM items WHERE message_id IN ({marks(message_ids)}) AND role = ? "
        "AND read_at IS NULL",
        (*message_ids, role),
    ).fetchall()
    return [int(r[0]) for r in rows]


def pending_meeting_attempt_keys(conn: Connection) -> list[str]:
    """Keys of live meeting and owed-reply attempts (so a closed meeting's are labelled)."""
    rows = conn.execute(
        "SELECT key FROM attempts WHERE outcome = 'pending' AND kind IN ('meeting', 'owed_reply')"
    ).fetchall()
    return [str(r[0]) for r in rows]
