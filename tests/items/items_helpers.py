"""Small builders shared by the item tests (not a conftest: see tests/conftest.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from conftest import Desk


def enqueue(
    desk: Desk,
    title: str = "disk 91%",
    *,
    to: str = "alpha",
    source: str = "alert",
    priority: str | None = None,
    key: str | None = None,
    sla: str | None = None,
    body: str | None = None,
    role: str | None = None,
) -> dict[str, Any]:
    """``deskd inbox enqueue … --json``; returns ``{"id", "deduped"}``."""
    args = ["inbox", "enqueue", "--for", to, "--source", source, "--title", title]
    for flag, value in (
        ("--priority", priority),
        ("--dedup-key", key),
        ("--sla", sla),
        ("--body", body),
    ):
        if value is not None:
            args += [flag, value]
    out: dict[str, Any] = desk.json(*args, role=role)
    return out


def item_row(desk: Desk, item_id: int) -> dict[str, Any]:
    conn = desk.db()
    try:
        row = conn.execute("SELECT * FROM items WHERE id = ?", (item_id,)).fetchone()
        assert row is not None, f"no item {item_id}"
        return dict(row)
    finally:
        conn.close()


def unread_ids(desk: Desk, role: str = "alpha") -> list[int]:
    conn = desk.db()
    try:
        rows = conn.execute(
            "SELECT id FROM items WHERE role = ? AND read_at IS NULL ORDER BY id", (role,)
        )
        return [int(r[0]) for r in rows]
    finally:
        conn.close()


def ledger_by_id(desk: Desk, *args: str) -> dict[int, dict[str, Any]]:
    return {int(r["item_id"]): r for r in desk.json("ledger", *args)}


def iso(ms: int) -> str:
    """The contract's JSON instant: ISO 8601 UTC with a Z."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
