"""Store reads hand up frozen records, filled by column name, never ``sqlite3.Row``."""

from __future__ import annotations

import dataclasses
import sqlite3
import subprocess
import sys

import pytest

from conftest import Desk
from deskd.store.db import connect
from deskd.store.items import unread_items
from deskd.store.records import record_of
from deskd.store.records.help import HelpRequest
from deskd.store.records.items import Item


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
    with pytest.raises(dataclasses.FrozenInstanceError):
        item.title = "changed"  # type: ignore[misc]


def _row(sql: str) -> sqlite3.Row:
    conn = sqlite3.connect(":memory:")
    conn.row_factory = sqlite3.Row
    row: sqlite3.Row = conn.execute(sql).fetchone()
    conn.close()
    return row


def test_it_ignores_extra_columns_and_refuses_a_missing_one() -> None:
    row = _row(
        "SELECT 7 AS id, 'beta' AS role, 't' AS title, 'b' AS body, 5 AS enqueued_at, "
        "NULL AS capability, 'ignored' AS later_column"
    )
    assert record_of(HelpRequest, row) == HelpRequest(
        id=7, role="beta", title="t", body="b", enqueued_at=5, capability=None
    )
    with pytest.raises(IndexError):
        record_of(HelpRequest, _row("SELECT 7 AS id, 'beta' AS role"))


LAZY_PROBE = """
import sys
from deskd.store.records import Item, Hook
assert Item.__module__ == "deskd.store.records.items", Item.__module__
print(" ".join(sorted(m for m in sys.modules if m.startswith("deskd.store.records."))))
try:
    from deskd.store.records import Nope
except ImportError as exc:
    print("refused:", exc)
"""


def test_naming_a_record_from_the_package_builds_only_its_module() -> None:
    done = subprocess.run(
        [sys.executable, "-c", LAZY_PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    loaded, refused = done.stdout.splitlines()
    assert loaded.split() == ["deskd.store.records.hooks", "deskd.store.records.items"]
    assert "Nope" in refused
