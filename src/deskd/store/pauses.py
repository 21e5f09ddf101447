"""Pauses: a person stops launching and paging for the desk (role NULL) or one role; and
silences: a person holds a role's non-urgent pages for a while (maintenance, a day off)."""

from __future__ import annotations

from deskd.store.dialect import Connection, Sql
from deskd.store.records import maybe_record, records_of
from deskd.store.records.roles import Pause, Silence


def live_pauses(conn: Connection) -> list[Pause]:
    rows = conn.execute("SELECT * FROM pauses WHERE ended_at IS NULL ORDER BY id")
    return records_of(Pause, rows)


def insert_pause(conn: Connection, *, role: str | None, reason: str, by: str, now: int) -> int:
    cur = conn.execute(
        "INSERT INTO pauses (role, reason, started_at, started_by) VALUES (?, ?, ?, ?) RETURNING id",
        (role, reason, now, by),
    )
    return int(cur.fetchone()[0])


_END_PAUSES = Sql(  # ``role`` is NULL for a desk-wide pause: compared with IS, not =
    sqlite="UPDATE pauses SET ended_at = ?, ended_by = ? WHERE ended_at IS NULL AND role IS ?",
    postgresql="UPDATE pauses SET ended_at = ?, ended_by = ? "
    "WHERE ended_at IS NULL AND role IS NOT DISTINCT FROM ?",
)


def end_pauses(conn: Connection, *, role: str | None, by: str, now: int) -> int:
    return conn.execute(_END_PAUSES, (now, by, role)).rowcount


# --- silences ---------------------------------------------------------------------------------


def insert_silence(
    conn: Connection, *, role: str, reason: str, until: int, by: str, now: int
) -> int:
    cur = conn.execute(
        "INSERT INTO silences (role, reason, started_at, until_at, started_by) "
        "VALUES (?, ?, ?, ?, ?) RETURNING id",
        (role, reason, now, until, by),
    )
    return int(cur.fetchone()[0])


def close_open(conn: Connection, role: str, *, by: str, now: int) -> list[int]:
    """End ``role``'s open silence before a new one starts (the index ``silences_one_open``
    allows one): a live one ends now, an expired one at its own ``until_at``. Returns the ids
    of silences that were still in force."""
    live = [
        int(r[0])
        for r in conn.execute(
            "SELECT id FROM silences WHERE role = ? AND ended_at IS NULL AND until_at > ?",
            (role, now),
        )
    ]
    conn.execute(
        "UPDATE silences SET ended_at = CASE WHEN until_at > ? THEN ? ELSE until_at END, "
        "ended_by = ? WHERE role = ? AND ended_at IS NULL",
        (now, now, by, role),
    )
    return live


def live_silences(conn: Connection, *, now: int) -> list[Silence]:
    """Silences in force at ``now`` (not ended, not expired), on the ``silences_live`` index."""
    rows = conn.execute(
        "SELECT * FROM silences WHERE ended_at IS NULL AND until_at > ? ORDER BY role, id", (now,)
    )
    return records_of(Silence, rows)


def list_silences(conn: Connection, *, limit: int) -> list[Silence]:
    rows = conn.execute("SELECT * FROM silences ORDER BY id DESC LIMIT ?", (limit,))
    return records_of(Silence, rows)


def get_silence(conn: Connection, silence_id: int) -> Silence | None:
    row = conn.execute("SELECT * FROM silences WHERE id = ?", (silence_id,)).fetchone()
    return maybe_record(Silence, row)


def end_silence(conn: Connection, silence_id: int, *, by: str, now: int) -> int:
    """End a silence early (compare-and-set: only one still in force)."""
    return conn.execute(
        "UPDATE silences SET ended_at = ?, ended_by = ? "
        "WHERE id = ? AND ended_at IS NULL AND until_at > ?",
        (now, by, silence_id, now),
    ).rowcount
