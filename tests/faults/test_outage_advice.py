"""Advice that matches the cause: each kind of outage — server down, relay gone, lock timeout,
read-only, disk full, damage — gets its own words, and only damage is told to restore from a
backup. The errors are the real ones SQLite and the PostgreSQL driver raise, translated by the
store as every command sees them."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import pytest

from deskd.errors import StoreError, database_unavailable, outage_advice
from deskd.store.db import store_error


def _sqlite_failure(path: Path, kind: str) -> StoreError:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE t (x BLOB)")
    conn.close()
    try:
        if kind == "read-only":
            ro = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            ro.execute("INSERT INTO t VALUES (1)")
        elif kind == "disk full":
            full = sqlite3.connect(path, isolation_level=None)
            full.execute("PRAGMA max_page_count = 3")  # SQLITE_FULL, as a full disk gives
            full.execute("INSERT INTO t VALUES (zeroblob(100000))")
        elif kind == "lock timeout":
            holder = sqlite3.connect(path, isolation_level=None)
            holder.execute("BEGIN IMMEDIATE")
            waiter = sqlite3.connect(path, isolation_level=None, timeout=0)
            waiter.execute("INSERT INTO t VALUES (1)")
        elif kind == "damage":
            path.write_bytes(b"this is no SQLite file at all" * 200)
            sqlite3.connect(path).execute("SELECT * FROM t")
    except sqlite3.Error as exc:
        return store_error(exc)
    raise AssertionError(f"{kind}: no error")


def _server_down() -> StoreError:
    from deskd.store.pg import open_pg

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    try:
        open_pg(f"postgresql://desk:pw@127.0.0.1:{port}/desk", busy_ms=1000, retry_s=0)
    except StoreError as exc:
        return exc
    raise AssertionError("connected to a closed port")


KINDS = ["read-only", "disk full", "lock timeout", "damage"]


def test_each_outage_kind_gets_its_own_advice_and_only_damage_a_restore(tmp_path: Path) -> None:
    errors = {kind: _sqlite_failure(tmp_path / f"{i}.db", kind) for i, kind in enumerate(KINDS)}
    errors["server down"] = _server_down()
    # What the relay client raises when the host's relay goes away mid-transaction.
    errors["relay gone"] = StoreError("the host's relay went away (a transaction was rolled back)")
    said = {kind: database_unavailable("DB", exc).message for kind, exc in errors.items()}
    advice = {kind: outage_advice(exc, str(exc)) for kind, exc in errors.items()}
    assert all(advice[kind] in said[kind] for kind in said)
    assert len(set(advice.values())) == len(advice), said  # one message per kind
    for kind, text in said.items():
        assert ("backup" in text) == (kind == "damage"), (kind, text)
    assert "disk is full" in advice["disk full"] and "read-only" in advice["read-only"]
    assert "write lock" in advice["lock timeout"] and "relay" in advice["relay gone"]
    assert "PostgreSQL" in said["server down"] and "damaged" in advice["damage"]


@pytest.mark.parametrize("kind", ["read-only", "disk full"])
def test_a_command_on_an_outage_says_nothing_is_damaged(tmp_path: Path, kind: str) -> None:
    text = database_unavailable(tmp_path, _sqlite_failure(tmp_path / "x.db", kind)).message
    assert "nothing is damaged" in text and "restore" not in text
