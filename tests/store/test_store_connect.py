"""connect() and transaction(): the pragmas every process gets, and write transactions that
roll back on errors and nest with savepoints."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from conftest import Desk
from deskd.errors import StoreBusy, StoreIntegrityError
from deskd.store.db import DatabaseMissing, connect, transaction

if TYPE_CHECKING:
    from deskd.store.dialect import Connection


def _fresh(tmp_path: Path) -> Connection:
    return connect(tmp_path / "data" / "deskd.db")


def _count(conn: Connection, kind: str) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM events WHERE kind = ?", (kind,)).fetchone()[0])


def _add(conn: Connection, kind: str) -> None:
    conn.execute("INSERT INTO events (at, kind) VALUES (1, ?)", (kind,))


def test_it_opens_in_wal_with_busy_timeout_and_foreign_keys(tmp_path: Path) -> None:
    conn = _fresh(tmp_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.isolation_level is None  # autocommit: nothing written outside transaction()
    assert isinstance(conn.execute("SELECT 1 AS one").fetchone(), sqlite3.Row)


def test_it_sets_the_busy_timeout_it_is_given(tmp_path: Path) -> None:
    conn = connect(tmp_path / "x.db", busy_ms=250)
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 250


def test_it_keeps_wal_for_every_later_connection(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    connect(path).close()
    plain = sqlite3.connect(path)
    assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_it_enforces_foreign_keys(tmp_path: Path) -> None:
    conn = _fresh(tmp_path)
    with pytest.raises(StoreIntegrityError), transaction(conn):
        conn.execute(
            "INSERT INTO items (role, source, priority, title, enqueued_at, sla_due_at) "
            "VALUES ('nobody', 'alert', 1, 't', 1, 2)"
        )


def test_it_refuses_a_missing_file_when_asked_not_to_create(tmp_path: Path) -> None:
    with pytest.raises(DatabaseMissing):
        connect(tmp_path / "absent.db", create=False)
    assert not (tmp_path / "absent.db").exists()


def test_it_commits_a_transaction_for_other_connections_to_see(tmp_path: Path) -> None:
    conn = _fresh(tmp_path)
    other = connect(tmp_path / "data" / "deskd.db")
    with transaction(conn):
        _add(conn, "one")
        assert _count(other, "one") == 0
    assert _count(other, "one") == 1


def test_it_rolls_back_a_transaction_on_an_exception(tmp_path: Path) -> None:
    conn = _fresh(tmp_path)
    with pytest.raises(RuntimeError, match="boom"), transaction(conn):
        _add(conn, "lost")
        raise RuntimeError("boom")
    assert not conn.in_transaction
    assert _count(conn, "lost") == 0


def test_it_rolls_back_only_the_inner_savepoint_when_the_outer_goes_on(tmp_path: Path) -> None:
    conn = _fresh(tmp_path)
    with transaction(conn):
        _add(conn, "outer")
        with pytest.raises(ValueError), transaction(conn):
            _add(conn, "inner")
            raise ValueError("inner fails")
        _add(conn, "after")
    assert (_count(conn, "outer"), _count(conn, "inner"), _count(conn, "after")) == (1, 0, 1)


def test_it_rolls_back_a_committed_savepoint_with_its_failing_outer(tmp_path: Path) -> None:
    conn = _fresh(tmp_path)
    with pytest.raises(KeyError), transaction(conn):
        with transaction(conn):
            _add(conn, "inner")
        raise KeyError("outer fails")
    assert _count(conn, "inner") == 0


def test_it_nests_three_deep(tmp_path: Path) -> None:
    conn = _fresh(tmp_path)
    with transaction(conn), transaction(conn):
        with transaction(conn):
            _add(conn, "deep")
        with pytest.raises(ValueError), transaction(conn):
            _add(conn, "dropped")
            raise ValueError
    assert (_count(conn, "deep"), _count(conn, "dropped")) == (1, 0)


def test_it_takes_the_write_lock_when_the_transaction_begins(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    conn = connect(path)
    other = connect(path, busy_ms=0)
    with transaction(conn):
        # BEGIN IMMEDIATE: no write yet, but a second writer is already shut out ...
        with pytest.raises(StoreBusy, match="locked"):
            other.execute("BEGIN IMMEDIATE")
        # ... while readers are not (WAL).
        assert other.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0


def test_it_reraises_the_real_error_when_sqlite_already_rolled_back(tmp_path: Path) -> None:
    # INSERT OR ROLLBACK ends the transaction inside SQLite; the helper must not then fail
    # with "cannot rollback - no transaction is active" and hide the real error.
    conn = _fresh(tmp_path)
    with transaction(conn):
        conn.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
    with pytest.raises(StoreIntegrityError), transaction(conn):
        conn.execute("INSERT OR ROLLBACK INTO meta (key, value) VALUES ('k', 'again')")
    assert not conn.in_transaction
    with pytest.raises(StoreIntegrityError), transaction(conn), transaction(conn):
        conn.execute("INSERT OR ROLLBACK INTO meta (key, value) VALUES ('k', 'again')")
    assert not conn.in_transaction
    with transaction(conn):  # the connection is still usable
        _add(conn, "later")
    assert _count(conn, "later") == 1


@pytest.mark.sqlite_only  # reads SQLite's own catalog and pragmas
def test_it_stores_every_instant_as_integer_unix_ms(desk: Desk) -> None:
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk")
    desk.ok("send", "--from", "beta", "--to", "alpha", "--subject", "hi", "--body", "x")
    desk.advance(minutes=1)
    desk.ok("inbox", "list", role="alpha")
    desk.advance(minutes=1)
    desk.ok("inbox", "ack", "--seen", role="alpha")
    conn = desk.db()
    item = conn.execute("SELECT * FROM items WHERE id = 1").fetchone()
    start = desk.now_ms - 2 * 60_000
    assert item["enqueued_at"] == start
    assert item["sla_due_at"] == start + 30 * 60_000
    assert item["seen_at"] == start + 60_000
    assert item["read_at"] == desk.now_ms
    checked = 0
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        for column in conn.execute(f"PRAGMA table_info({table})").fetchall():
            name = column["name"]
            if not (name.endswith("_at") or name == "at"):
                continue
            assert column["type"] == "INTEGER", f"{table}.{name} is {column['type']}"
            kinds = conn.execute(
                f"SELECT DISTINCT typeof({name}) FROM {table} WHERE {name} IS NOT NULL"
            ).fetchall()
            assert {k[0] for k in kinds} <= {"integer"}, f"{table}.{name}: {kinds}"
            low = conn.execute(f"SELECT MIN({name}) FROM {table}").fetchone()[0]
            assert low is None or low > 10**12, f"{table}.{name} looks like seconds: {low}"
            checked += 1
    assert checked >= 8
