"""A SQLite database damaged the way a failing disk leaves it: one leaf page in the middle of
the items table overwritten, so opening the file and most queries still work (shared by the
CLI's and the console's damage tests)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from conftest import Desk


def populated(desk: Desk, count: int = 120) -> None:
    for i in range(count):
        desk.ok(*ENQUEUE, "--title", f"t{i}", "--body", "b" * 200)
    conn = sqlite3.connect(desk.db_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


ENQUEUE = ("inbox", "enqueue", "--for", "alpha", "--source", "alert")


def damage_a_middle_leaf_of_items(db: Path) -> None:
    """Overwrite one leaf page in the middle of the items table: opening the file, and every
    query that does not walk those rows, still works."""
    conn = sqlite3.connect(db)
    try:
        size = int(conn.execute("PRAGMA page_size").fetchone()[0])
        leaves = [
            int(r[0])
            for r in conn.execute(
                "SELECT pageno FROM dbstat WHERE name = 'items' AND pagetype = 'leaf' "
                "ORDER BY pageno"
            )
        ]
    except sqlite3.OperationalError as exc:  # SQLite built without dbstat
        pytest.skip(f"no dbstat: {exc}")
    finally:
        conn.close()
    page = leaves[len(leaves) // 2]
    data = bytearray(db.read_bytes())
    start = (page - 1) * size
    data[start + 8 : start + size - 8] = b"\xa5" * (size - 16)
    db.write_bytes(bytes(data))
