"""Deliveries that came in (events over HTTP, emailed replies): claimed once by the sender's
id, and the unread items an event opened under a dedup key (what its resolution acks)."""

from __future__ import annotations

from deskd.store.dialect import Connection


def claim_delivery(conn: Connection, *, source: str, delivery: str, now: int) -> bool:
    """Whether ``(source, delivery)`` is new (now claimed); False when it came before."""
    row = conn.execute(
        "INSERT INTO deliveries (source, delivery, received_at) VALUES (?, ?, ?) "
        "ON CONFLICT (source, delivery) DO NOTHING RETURNING source",
        (source, delivery, now),
    ).fetchone()
    return row is not None


def unread_by_dedup_key(conn: Connection, *, source: str, dedup_key: str) -> list[tuple[str, int]]:
    """(role, item id) of every unread item ``source`` opened under ``dedup_key``."""
    rows = conn.execute(
        "SELECT role, id FROM items WHERE source = ? AND dedup_key = ? AND read_at IS NULL "
        "ORDER BY id",
        (source, dedup_key),
    ).fetchall()
    return [(str(r[0]), int(r[1])) for r in rows]
