"""Store reads hand up immutable records (NamedTuples), filled by column name, never ``sqlite3.Row``."""

from __future__ import annotations

import sqlite3

import pytest

from conftest import Desk
from deskd.core.records import HelpRequest
from deskd.store.db import connect
from deskd.store.items import unread_items
from deskd.store.records import record_of
from deskd.store.records.inbox import Item


def test_it_hands_up_a_frozen_record(desk: Desk) -> None:
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk 91%")
    conn = connect(desk.db_target)
    try:
        (item,) = unread_items(conn, "alpha")
    finally:
        conn.close()
    assert isinstance(item, Item)
    assert (item.role, item.title, item.source, item.read_at) == (
        "alpha",
        "disk 91%",
        "alert",
        None,
    )
    with pytest.raises(AttributeError):
        item.title = "changed"  # type: ignore[misc]


def _row(sql: str) -> sqlite3.Row:
    conn = sqlite3.connect(":memory:")
    conn.row_factory = sqlite3.Row
    row: sqlite3.Row = conn.execute(sql).fetchone()
    conn.close()
    return row


def test_it_ignores_extra_columns_and_refuses_a_missing_one() -> None:
    row = _row(
        "SELECT 7 AS item_id, 'beta' AS role, 't' AS title, 'b' AS body, 5 AS enqueued_at, "
        "NULL AS capability, 'ignored' AS later_column"
    )
    assert record_of(HelpRequest, row) == HelpRequest(
        item_id=7, role="beta", title="t", body="b", enqueued_at=5, capability=None
    )
    with pytest.raises(IndexError):
        record_of(HelpRequest, _row("SELECT 7 AS item_id, 'beta' AS role"))
