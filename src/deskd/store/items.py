"""Items: one row per (thing, recipient). Delivery stamps live on the row; states are derived.
And the deliveries that came in (events over HTTP, emailed replies), claimed once by the
sender's id.

On the session hook's path: stdlib only, records built by ``query.lazy_records``.
"""

from __future__ import annotations

from collections.abc import Sequence

from deskd.store.query import lazy_record, lazy_records, marks, select_where

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; mypy reads it as True
if TYPE_CHECKING:
    from deskd.core.records import ItemView
    from deskd.store.dialect import Connection, Row
    from deskd.store.records.inbox import Item

_UNREAD_ORDER = "ORDER BY priority DESC, enqueued_at, id"
# A probe per unread item, not ``id NOT IN (SELECT …)``: PostgreSQL reads that subquery whole
# (every help request ever made), where this is an anti-join on the primary key.
_NOT_HELP = "NOT EXISTS (SELECT 1 FROM help_requests AS h WHERE h.item_id = items.id)"


def insert_item(
    conn: Connection,
    *,
    role: str,
    source: str,
    priority: int,
    title: str,
    body: str,
    ref: str | None,
    dedup_key: str | None,
    now: int,
    sla_due_at: int,
    sender: str | None = None,
    message_id: str | None = None,
) -> tuple[int, bool]:
    """Insert an item, or coalesce into the unread one with the same (role, dedup key).

    Idempotency comes from the partial unique index ``items_dedup_live`` (unread rows
    only), not from checking first: two racing enqueues cannot both insert. A coalesced
    item keeps its text and takes the higher priority and the earlier SLA due time.
    Returns (id, deduped).
    """
    row = conn.execute(
        "INSERT INTO items (role, source, sender, message_id, priority, title, body, ref, "
        "dedup_key, enqueued_at, sla_due_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (role, dedup_key) WHERE dedup_key IS NOT NULL AND read_at IS NULL "
        # Columns qualified: PostgreSQL finds a bare one ambiguous beside ``excluded``.
        "DO UPDATE SET priority = CASE WHEN excluded.priority > items.priority "
        "THEN excluded.priority ELSE items.priority END, "
        "sla_due_at = CASE WHEN excluded.sla_due_at < items.sla_due_at "
        "THEN excluded.sla_due_at ELSE items.sla_due_at END, "
        "dedup_count = items.dedup_count + 1, "
        # Raised to a higher priority, it is news again: the role must be shown it anew, and
        # `ack --seen` must not ack what was only seen at the lower priority.
        "seen_at = CASE WHEN excluded.priority > items.priority THEN NULL ELSE items.seen_at END, "
        "shown_session = CASE WHEN excluded.priority > items.priority "
        "THEN NULL ELSE items.shown_session END "
        "RETURNING id, dedup_count",
        (role, source, sender, message_id, priority, title, body, ref, dedup_key, now, sla_due_at),
    ).fetchone()
    return int(row[0]), int(row[1]) > 0


def get_item(conn: Connection, item_id: int) -> Item | None:
    row = conn.execute("SELECT * FROM items WHERE id = ?", (item_id,)).fetchone()
    return lazy_record(row, "inbox", "Item")


def unread_items(conn: Connection, role: str) -> list[Item]:
    """The role's unread items, urgent first, then oldest first."""
    rows = conn.execute(
        f"SELECT * FROM items WHERE role = ? AND read_at IS NULL {_UNREAD_ORDER}", (role,)
    )
    return lazy_records(rows, "inbox", "Item")


def recent_items(conn: Connection, role: str, *, limit: int) -> list[Item]:
    """Read and unread items of the role, newest first."""
    rows = conn.execute(
        "SELECT * FROM items WHERE role = ? ORDER BY id DESC LIMIT ?", (role, limit)
    )
    return lazy_records(rows, "inbox", "Item")


def items_not_shown(conn: Connection, role: str, session: str) -> list[Row]:
    """Unread items the role's session ``session`` has not been shown, urgent first.

    A role's own request for help (`deskd page`) is not news to it: never surfaced back.
    Plain rows, not records: only the session hook reads them, and it stays off ``typing``.
    """
    return conn.execute(
        "SELECT id, priority, source, sender, title, body, ref FROM items "
        "WHERE role = ? AND read_at IS NULL AND (shown_session IS NULL OR shown_session <> ?) "
        f"AND {_NOT_HELP} {_UNREAD_ORDER}",
        (role, session),
    ).fetchall()


def mark_shown(conn: Connection, ids: Sequence[int], *, session: str | None, now: int) -> int:
    """Record that the role was shown these items (by its hook, its own list or a landed wake)."""
    if not ids:
        return 0
    return conn.execute(
        "UPDATE items SET notified_at = COALESCE(notified_at, ?), seen_at = COALESCE(seen_at, ?), "
        "shown_session = COALESCE(?, shown_session) "
        f"WHERE id IN ({marks(ids)}) AND read_at IS NULL",
        (now, now, session, *ids),
    ).rowcount


def forget_shown_in_session(conn: Connection, role: str, session: str) -> int:
    """After a compaction the session's context lost what it was shown: show it again."""
    return conn.execute(
        "UPDATE items SET shown_session = NULL "
        "WHERE role = ? AND shown_session = ? AND read_at IS NULL",
        (role, session),
    ).rowcount


def unread_ids_among(conn: Connection, role: str, ids: Sequence[int]) -> list[int]:
    """Which of ``ids`` are items addressed to ``role`` (read or not)."""
    if not ids:
        return []
    rows = conn.execute(
        f"SELECT id FROM items WHERE role = ? AND id IN ({marks(ids)})", (role, *ids)
    ).fetchall()
    return [int(r[0]) for r in rows]


def ack_items(conn: Connection, role: str, ids: Sequence[int], *, now: int, by: str) -> int:
    if not ids:
        return 0
    return conn.execute(
        f"UPDATE items SET read_at = ?, read_by = ? "
        f"WHERE role = ? AND read_at IS NULL AND id IN ({marks(ids)})",
        (now, by, role, *ids),
    ).rowcount


def ack_seen_items(conn: Connection, role: str, *, now: int, by: str) -> int:
    """Ack exactly the unread items the role has been shown — never by time or id watermark.

    A request for help is settled only on purpose (`--id N`, or a person's `deskd wake ack`),
    never swept up by a blanket ack.
    """
    return conn.execute(
        "UPDATE items SET read_at = ?, read_by = ? "
        f"WHERE role = ? AND read_at IS NULL AND seen_at IS NOT NULL AND {_NOT_HELP}",
        (now, by, role),
    ).rowcount


def ledger_rows(
    conn: Connection,
    *,
    role: str | None,
    unread_only: bool,
    limit: int,
    before_id: int | None = None,
) -> list[Item]:
    """Items for the delivery ledger, newest first (older than ``before_id``: the next page)."""
    rows = select_where(
        conn,
        "SELECT * FROM items",
        ("role = ?", role),
        "read_at IS NULL" if unread_only else None,
        ("id < ?", before_id),
        order="id DESC",
        limit=limit,
    )
    return lazy_records(rows, "inbox", "Item")


def count_unread_by_role(conn: Connection) -> dict[str, int]:
    rows = conn.execute(
        "SELECT role, COUNT(*) FROM items WHERE read_at IS NULL GROUP BY role"
    ).fetchall()
    return {str(r[0]): int(r[1]) for r in rows}


def overdue_unread(conn: Connection, *, now: int) -> list[Item]:
    """Unread items past their SLA, for the board's gauges: an item of a closed meeting is
    history (the ledger still says ``overdue``), not an alarm, so it is left out."""
    rows = conn.execute(
        "SELECT * FROM items WHERE read_at IS NULL AND sla_due_at <= ? "
        # One primary-key lookup per overdue meeting item (ref "meeting:<id>"), never a scan
        # of the meetings' history.
        "AND NOT (source = 'meeting' AND EXISTS (SELECT 1 FROM meetings m WHERE "
        "m.id = CAST(substr(items.ref, 9) AS INTEGER) AND m.state = 'closed')) "
        f"{_UNREAD_ORDER}",
        (now,),
    )
    return lazy_records(rows, "inbox", "Item")


def unread_count(conn: Connection, role: str) -> int:
    """How many unread items the role has (the session hook's briefing)."""
    row = conn.execute(
        "SELECT COUNT(*) FROM items WHERE role = ? AND read_at IS NULL", (role,)
    ).fetchone()
    return int(row[0])


def all_unread_items(conn: Connection) -> list[ItemView]:
    """Every unread item of every role (the planner's snapshot; runs on ``items_unread``)."""
    from deskd.core.records import ItemView
    from deskd.store.records import records_of

    rows = conn.execute(
        "SELECT id, role, priority, source, sender, title, ref, enqueued_at, sla_due_at, "
        f"notified_at FROM items WHERE read_at IS NULL {_UNREAD_ORDER}"
    )
    return records_of(ItemView, rows)


# --- deliveries that came in -----------------------------------------------------------------


def claim_delivery(conn: Connection, *, source: str, delivery: str, now: int) -> bool:
    """Whether ``(source, delivery)`` is new (now claimed); False when it came before."""
    row = conn.execute(
        "INSERT INTO deliveries (source, delivery, received_at) VALUES (?, ?, ?) "
        "ON CONFLICT (source, delivery) DO NOTHING RETURNING source",
        (source, delivery, now),
    ).fetchone()
    return row is not None


def unread_by_dedup_key(conn: Connection, *, source: str, dedup_key: str) -> list[tuple[str, int]]:
    """(role, item id) of every unread item ``source`` opened under ``dedup_key`` (what the
    event's resolution acks)."""
    rows = conn.execute(
        "SELECT role, id FROM items WHERE source = ? AND dedup_key = ? AND read_at IS NULL "
        "ORDER BY id",
        (source, dedup_key),
    ).fetchall()
    return [(str(r[0]), int(r[1])) for r in rows]
