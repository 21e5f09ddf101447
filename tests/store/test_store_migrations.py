"""Migrations: an ordered registry recorded in PRAGMA user_version, each version run once,
tested from the oldest shape (lessons 40–42). Written against LATEST so later schema
versions keep these tests meaningful."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from conftest import Desk
from deskd.errors import StoreError
from deskd.store import migrations
from deskd.store.db import SqliteConnection, connect
from deskd.store.migrations import (
    LATEST,
    MIGRATIONS,
    SchemaTooNew,
    ensure_current,
    schema_version,
)

T = 1_796_133_600_000  # 2026-12-01T14:00:00Z


def _raw(path: Path) -> SqliteConnection:
    conn = sqlite3.connect(path, isolation_level=None, factory=SqliteConnection)
    conn.row_factory = sqlite3.Row
    return conn


def _data_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def _insert_v1_rows(conn: sqlite3.Connection) -> None:
    """Rows written the way schema version 1 wrote them (explicit v1 columns only)."""
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(
        "INSERT INTO roles (name, title, enabled, in_desk, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [("alpha", "Alpha", 1, 1, T, T), ("beta", "Beta", 0, 0, T, T + 1)],
    )
    conn.execute(
        "INSERT INTO sessions (role, native_id, agent, state, started_at, ended_at, "
        "last_heartbeat_at, last_event, last_tool, heartbeats, failure) "
        "VALUES ('alpha', 'sess-1', 'claude', 'resting', ?, NULL, ?, 'Stop', 'Bash', 7, NULL)",
        (T, T + 5000),
    )
    conn.execute(
        "INSERT INTO items (role, message_id, source, sender, priority, title, body, ref, "
        "dedup_key, enqueued_at, sla_due_at, notified_at, seen_at, read_at, read_by) "
        "VALUES ('alpha', NULL, 'alert', NULL, 3, 'disk 91%', 'line 1\nline 2', 'ticket:7', "
        "'disk', ?, ?, ?, ?, NULL, NULL)",
        (T, T + 300_000, T + 1000, T + 1000),
    )
    conn.execute(
        "INSERT INTO items (role, message_id, source, sender, priority, title, body, "
        "enqueued_at, sla_due_at, read_at, read_by) "
        "VALUES ('beta', 'msg-1', 'message', 'alpha', 1, 'hello', '', ?, ?, ?, 'beta')",
        (T, T + 1_800_000, T + 60_000),
    )
    conn.execute(
        "INSERT INTO events (at, kind, role, actor, subject, detail) "
        "VALUES (?, 'item.enqueued', 'alpha', NULL, 'item:1', '{\"source\": \"alert\"}')",
        (T,),
    )
    conn.execute("INSERT INTO meta (key, value) VALUES ('desk_roles', '[]')")
    conn.execute("COMMIT")


V1_QUERIES = {
    "roles": "SELECT name, title, enabled, in_desk, created_at, updated_at FROM roles ORDER BY name",
    "sessions": "SELECT role, native_id, agent, state, started_at, last_heartbeat_at, "
    "last_event, last_tool, heartbeats FROM sessions ORDER BY id",
    "items": "SELECT id, role, message_id, source, sender, priority, title, body, ref, dedup_key, "
    "enqueued_at, sla_due_at, notified_at, seen_at, read_at, read_by FROM items ORDER BY id",
    "events": "SELECT at, kind, role, subject, detail FROM events ORDER BY id",
    "meta": "SELECT key, value FROM meta ORDER BY key",
}


def _v1_view(conn: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    return {name: [tuple(r) for r in conn.execute(q)] for name, q in V1_QUERIES.items()}


def test_it_keeps_an_ordered_registry_with_latest_as_its_length() -> None:
    assert LATEST == len(MIGRATIONS) >= 1
    assert all(isinstance(m, str) and m.strip() for m in MIGRATIONS)


RELEASED = (
    "da29c2da182f52f6",
    "999a9064c46589b5",
    "85efd8b3f22f735c",
    "430c2efcf9d9c2c2",
    "460fa3946db4dd0b",
    "3fef92959e8928de",
    "dd23a2fc55d4e97b",
    "ee783db3d8181816",
    "cd6be26e2775c854",
    "28272eefa9deff09",
    "d6195f23be7f8857",
    "d35eb2438a7a0da8",
    "cc721db9fa7979dd",
    "41a0a23fa023c3b7",
    "cfbf841630aff9fc",
)
"""The first 16 hex digits of SHA-256 over each released migration's SQLite statements."""


def test_a_released_migration_reads_the_same_on_sqlite_for_ever() -> None:
    from string import Template

    sqlite = [Template(m).substitute(migrations.TYPES["sqlite"]) for m in MIGRATIONS]
    digests = tuple(hashlib.sha256(text.encode()).hexdigest()[:16] for text in sqlite)
    assert digests[: len(RELEASED)] == RELEASED


def test_every_type_slot_has_a_spelling_in_each_dialect_and_no_other_dollar_passes() -> None:
    assert set(migrations.TYPES["sqlite"]) == set(migrations.TYPES["postgresql"])
    for dialect in migrations.TYPES:
        for script in MIGRATIONS:
            assert "$" not in "".join(migrations.statements(script, dialect))
    with pytest.raises(KeyError, match="BIGINT"):
        migrations.statements("CREATE TABLE t (x $BIGINT);", "postgresql")


def test_it_migrates_a_version_1_database_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    old = _raw(path)
    assert ensure_current(old, target=1) == 1
    assert schema_version(old) == 1
    _insert_v1_rows(old)
    before = _v1_view(old)
    old.close()

    conn = connect(path)
    assert schema_version(conn) == LATEST
    assert _v1_view(conn) == before
    assert before["items"][0][7] == "line 1\nline 2"
    # The migrated file works the current way: a new item goes in after the old ones.
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(
        "INSERT INTO items (role, source, priority, title, enqueued_at, sla_due_at) "
        "VALUES ('alpha', 'alert', 1, 'new', ?, ?)",
        (T, T + 1),
    )
    conn.execute("COMMIT")
    assert conn.execute("SELECT MAX(id) FROM items").fetchone()[0] == 3


@pytest.mark.sqlite_only  # reads SQLite's own catalog and pragmas
def test_it_migrates_a_version_1_desk_that_the_cli_then_uses(desk: Desk) -> None:
    desk.db_path.parent.mkdir(parents=True)
    old = _raw(desk.db_path)
    ensure_current(old, target=1)
    _insert_v1_rows(old)
    old.close()
    listed = desk.json("inbox", "list", "--for", "alpha")
    assert [(i["id"], i["title"], i["priority"]) for i in listed] == [(1, "disk 91%", "urgent")]
    out = desk.json(
        "inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x",
        "--dedup-key", "disk",
    )  # fmt: skip
    assert out == {"id": 1, "deduped": True}


@pytest.mark.parametrize("target", range(1, LATEST + 1))
def test_it_reaches_every_version_one_step_at_a_time(tmp_path: Path, target: int) -> None:
    stepped = _raw(tmp_path / "stepped.db")
    for version in range(1, target + 1):
        assert ensure_current(stepped, target=version) == version
        assert schema_version(stepped) == version
    direct = _raw(tmp_path / "direct.db")
    assert ensure_current(direct, target=target) == target
    schema = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
    assert stepped.execute(schema).fetchall() == direct.execute(schema).fetchall()


def test_it_runs_no_migration_and_writes_nothing_when_current(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    connect(path).close()
    observer = _raw(path)
    seen = _data_version(observer)
    for _ in range(3):
        conn = connect(path)
        assert ensure_current(conn) == LATEST
        conn.close()
    assert _data_version(observer) == seen


def test_it_leaves_a_failed_migration_wholly_undone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "x.db"
    connect(path).close()
    broken = "CREATE TABLE half_done (x INTEGER);\nINSERT INTO no_such_table VALUES (1);\n"
    monkeypatch.setattr(migrations, "MIGRATIONS", (*MIGRATIONS, broken))
    conn = _raw(path)
    with pytest.raises(StoreError, match="no_such_table"):
        ensure_current(conn, target=LATEST + 1)
    assert schema_version(conn) == LATEST
    assert not conn.in_transaction
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "half_done" not in names


def test_it_refuses_a_database_from_a_newer_deskd(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    connect(path).close()
    raw = _raw(path)
    raw.execute(f"PRAGMA user_version = {LATEST + 1}")
    raw.close()
    with pytest.raises(SchemaTooNew, match=f"schema version {LATEST + 1}"):
        connect(path)
    assert schema_version(_raw(path)) == LATEST + 1


@pytest.mark.sqlite_only  # reads SQLite's own catalog and pragmas
def test_it_exits_3_on_a_database_from_a_newer_deskd(desk: Desk) -> None:
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x")
    raw = _raw(desk.db_path)
    raw.execute(f"PRAGMA user_version = {LATEST + 5}")
    raw.close()
    before = desk.dump()
    out = desk.run("inbox", "list", "--for", "alpha")
    assert out.exit_code == 3
    assert out.stderr.startswith("deskd: ")
    assert f"schema version {LATEST + 5}" in out.stderr and "upgrade deskd" in out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    out = desk.run(
        "inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "y", "--json"
    )
    assert out.exit_code == 3 and out.stdout == ""
    assert out.error()["code"] == "unavailable"
    assert desk.dump() == before


def test_it_keeps_comments_out_of_create_table_bodies(tmp_path: Path) -> None:
    # lesson 42: older SQLite rewrites CREATE TABLE text on ALTER; comments break that.
    conn = connect(tmp_path / "x.db")
    for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL"):
        assert "--" not in sql and "/*" not in sql, name
