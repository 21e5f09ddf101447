"""Store reads hand up immutable records (NamedTuples), filled by column name, never ``sqlite3.Row``."""

from __future__ import annotations

import sqlite3

import pytest

from conftest import Desk
from deskd.core.records import Attempt, HelpRequest
from deskd.store.db import connect
from deskd.store.items import unread_items
from deskd.store.records import record_of, shown
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


def test_it_reads_a_stored_id_list_as_a_tuple() -> None:
    row = _row(
        "SELECT 3 AS id, 'inbox:beta' AS key, 'inbox' AS kind, 'beta' AS role, "
        "'session' AS rung, 5 AS attempted_at, '[4, 9]' AS item_ids, '[]' AS task_ids"
    )
    attempt = record_of(Attempt, row)
    assert (attempt.item_ids, attempt.task_ids, attempt.unreadable) == ((4, 9), (), None)


def test_it_marks_a_corrupt_id_list_unreadable_instead_of_failing_its_readers() -> None:
    row = _row(
        "SELECT 3 AS id, 'inbox:beta' AS key, 'inbox' AS kind, 'beta' AS role, "
        "'session' AS rung, 5 AS attempted_at, 'not json' AS item_ids"
    )
    attempt = record_of(Attempt, row)
    assert attempt.item_ids == ()
    assert attempt.unreadable is not None and attempt.unreadable.startswith("item_ids ")


def test_it_shows_the_named_fields_in_order_with_instants_as_iso_text() -> None:
    row = _row("SELECT 7 AS item_id, 'beta' AS role, 't' AS title, 86400000 AS enqueued_at")
    request = record_of(HelpRequest, row)
    shown_fields = shown(request, "role enqueued_at item_id", iso="enqueued_at")
    assert list(shown_fields.items()) == [
        ("role", "beta"),
        ("enqueued_at", "1970-01-02T00:00:00Z"),
        ("item_id", 7),
    ]
