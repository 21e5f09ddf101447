"""The missed-tick alarm's ledger: one named function per statement.

A row is written before its channels are called (``queued``, due at once) and finished
after; a send is claimed by compare-and-set on ``tries``, so two consoles send it once.
"""

from __future__ import annotations

from deskd.store.dialect import Connection
from deskd.store.records import records_of
from deskd.store.records.wakes import TickAlarm


def insert_alarm(
    conn: Connection,
    *,
    host: str,
    kind: str,
    last_tick_at: int,
    title: str,
    body: str,
    results: str,
    due: bool,
    now: int,
) -> int | None:
    """The row's id; None when this host's silence already has its ``kind`` row."""
    cur = conn.execute(
        "INSERT INTO tick_alarms (host, kind, last_tick_at, title, body, status, created_at, "
        "next_try_at, results) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (host, kind, last_tick_at) DO NOTHING RETURNING id",
        (
            host,
            kind,
            last_tick_at,
            title,
            body,
            "queued" if due else "resolved",
            now,
            now if due else None,
            results,
        ),
    )
    row = cur.fetchone()
    return None if row is None else int(row[0])


def unsettled_stops(conn: Connection) -> list[TickAlarm]:
    """``stopped`` rows with no ``settled`` row yet, oldest first."""
    rows = conn.execute(
        "SELECT * FROM tick_alarms s WHERE s.kind = 'stopped' AND NOT EXISTS "
        "(SELECT 1 FROM tick_alarms t WHERE t.host = s.host AND t.kind = 'settled' "
        "AND t.last_tick_at = s.last_tick_at) ORDER BY s.id"
    )
    return records_of(TickAlarm, rows)


def stop_sending(conn: Connection, alarm_id: int) -> int:
    """The host ticks again: a ``stopped`` row not yet sent is never sent (resolved)."""
    return conn.execute(
        "UPDATE tick_alarms SET next_try_at = NULL, "
        "status = CASE WHEN status IN ('queued', 'held') THEN 'resolved' ELSE status END "
        "WHERE id = ?",
        (alarm_id,),
    ).rowcount


def due_alarms(conn: Connection, *, now: int, limit: int) -> list[TickAlarm]:
    """Rows whose next try has come, oldest first."""
    rows = conn.execute(
        "SELECT * FROM tick_alarms WHERE next_try_at IS NOT NULL AND next_try_at <= ? "
        "ORDER BY id LIMIT ?",
        (now, limit),
    )
    return records_of(TickAlarm, rows)


def claim_alarm(conn: Connection, alarm_id: int, *, tries: int, lease_until: int) -> bool:
    """Take a row for one send (compare-and-set on ``tries``); the lease moves its next try."""
    cur = conn.execute(
        "UPDATE tick_alarms SET tries = tries + 1, next_try_at = ? "
        "WHERE id = ? AND tries = ? AND next_try_at IS NOT NULL",
        (lease_until, alarm_id, tries),
    )
    return cur.rowcount == 1


def finish_alarm(
    conn: Connection,
    alarm_id: int,
    *,
    status: str,
    results: str,
    sent_at: int | None,
    next_try_at: int | None,
    held_why: str | None,
) -> None:
    """Record how a look or a send went."""
    conn.execute(
        "UPDATE tick_alarms SET status = ?, results = ?, sent_at = COALESCE(sent_at, ?), "
        "next_try_at = ?, held_why = ? WHERE id = ?",
        (status, results, sent_at, next_try_at, held_why, alarm_id),
    )
