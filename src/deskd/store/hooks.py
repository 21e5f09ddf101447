"""Wake hooks: schedules an agent registered for itself. A fire enqueues an item for its owner."""

from __future__ import annotations

from deskd.store.dialect import Connection
from deskd.store.query import select_where
from deskd.store.records import maybe_record, records_of
from deskd.store.records.work import Hook


def insert_hook(
    conn: Connection,
    *,
    owner: str,
    kind: str,
    spec: str,
    title: str,
    body: str,
    priority: int,
    until_at: int | None,
    next_fire_at: int | None,
    now: int,
) -> int:
    cur = conn.execute(
        "INSERT INTO hooks (owner, kind, spec, title, body, priority, created_at, until_at, "
        "next_fire_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (owner, kind, spec, title, body, priority, now, until_at, next_fire_at),
    )
    return int(cur.fetchone()[0])


def get_hook(conn: Connection, hook_id: int) -> Hook | None:
    row = conn.execute("SELECT * FROM hooks WHERE id = ?", (hook_id,)).fetchone()
    return maybe_record(Hook, row)


def list_hooks(conn: Connection, *, owner: str | None, include_closed: bool) -> list[Hook]:
    rows = select_where(
        conn,
        "SELECT * FROM hooks",
        ("owner = ?", owner),
        None if include_closed else "status = 'active'",
        order="id",
    )
    return records_of(Hook, rows)


def due_hooks(conn: Connection, *, now: int) -> list[Hook]:
    """Active hooks whose next fire has come (runs on the ``hooks_due`` partial index)."""
    rows = conn.execute(
        "SELECT * FROM hooks WHERE status = 'active' AND next_fire_at <= ? "
        "AND (retry_at IS NULL OR retry_at <= ?) ORDER BY next_fire_at, id",
        (now, now),
    )
    return records_of(Hook, rows)


def record_fire(
    conn: Connection,
    hook_id: int,
    *,
    fired_at: int,
    missed: int,
    next_fire_at: int | None,
    status: str,
) -> int:
    """Stamp a fire; compare-and-set on the old ``next_fire_at`` so a fire is recorded once."""
    return conn.execute(
        "UPDATE hooks SET last_fire_at = ?, fire_count = fire_count + 1, "
        "missed_count = missed_count + ?, next_fire_at = ?, status = ?, error_streak = 0, "
        "last_error = NULL, retry_at = NULL WHERE id = ? AND status = 'active'",
        (fired_at, missed, next_fire_at, status, hook_id),
    ).rowcount


def record_hook_error(
    conn: Connection, hook_id: int, *, error: str, streak: int, retry_at: int | None, status: str
) -> int:
    return conn.execute(
        "UPDATE hooks SET error_streak = ?, last_error = ?, retry_at = ?, status = ? "
        "WHERE id = ? AND status = 'active'",
        (streak, error, retry_at, status, hook_id),
    ).rowcount


def set_hook_status(conn: Connection, hook_id: int, *, status: str) -> int:
    return conn.execute(
        "UPDATE hooks SET status = ? WHERE id = ? AND status = 'active'", (status, hook_id)
    ).rowcount


def reschedule_hook(
    conn: Connection, hook_id: int, *, next_fire_at: int | None, status: str
) -> int:
    """Move a hook's next fire without counting a fire (nothing was due after all)."""
    return conn.execute(
        "UPDATE hooks SET next_fire_at = ?, status = ? WHERE id = ? AND status = 'active'",
        (next_fire_at, status, hook_id),
    ).rowcount
