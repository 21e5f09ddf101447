"""One live silence per role, enforced by the store (index silences_one_open), on SQLite and
PostgreSQL: racing `deskd silence add` processes leave exactly one in force (the newest
replaces the one before it), and the migration closes the extra open rows an older desk
holds, keeping the one that held longest."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Desk
from deskd.errors import StoreIntegrityError
from deskd.store.db import SqliteConnection
from deskd.store.migrations import LATEST, MIGRATIONS, ensure_current

DESKD = Path(sys.executable).parent / "deskd"


@pytest.mark.slow
def test_racing_silence_adds_leave_one_live_silence(desk: Desk) -> None:
    desk.ok("roles")  # the database exists before the race
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(desk.env())
    procs = [
        subprocess.Popen(
            [str(DESKD), "silence", "add", "--role", "alpha", "--for", "1h", "--reason", f"r{i}"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(12)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    live = desk.json("silence", "list")
    assert [s["role"] for s in live] == ["alpha"], live
    assert len(desk.json("silence", "list", "--all")) == 12


def test_a_new_silence_replaces_the_one_in_force(desk: Desk) -> None:
    first = desk.json("silence", "add", "--role", "alpha", "--for", "2h", "--reason", "deploy")
    second = desk.json("silence", "add", "--role", "alpha", "--for", "30m", "--reason", "short")
    assert second["replaced"] == [first["id"]]
    desk.json("silence", "add", "--role", "beta", "--for", "1h", "--reason", "other role")
    live = {s["role"]: s["id"] for s in desk.json("silence", "list")}
    assert live == {"alpha": second["id"], "beta": live["beta"]}
    out = desk.run("silence", "add", "--role", "alpha", "--for", "1h", "--reason", "again")
    assert "replaces silence" in out.stdout


def test_the_store_refuses_a_second_open_silence(desk: Desk) -> None:
    desk.ok("silence", "add", "--role", "alpha", "--for", "1h", "--reason", "r")
    conn = desk.db()
    with pytest.raises(StoreIntegrityError):
        conn.execute(
            "INSERT INTO silences (role, reason, started_at, until_at) VALUES ('alpha', 'x', 1, "
            f"{desk.now_ms + 3_600_000})"
        )
    conn.close()


@pytest.mark.sqlite_only
def test_the_migration_keeps_the_longest_open_silence_per_role(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    conn = sqlite3.connect(db, isolation_level=None, factory=SqliteConnection)
    before = MIGRATIONS.index(next(m for m in MIGRATIONS if "silences_one_open" in m))
    ensure_current(conn, target=before)
    rows = [("alpha", 500, None), ("alpha", 900, None), ("alpha", 700, None), ("beta", 100, None)]
    rows.append(("alpha", 2000, 50))  # already ended: untouched
    for role, until, ended in rows:
        conn.execute(
            "INSERT INTO silences (role, reason, started_at, until_at, ended_at) "
            "VALUES (?, 'r', 1, ?, ?)",
            (role, until, ended),
        )
    assert ensure_current(conn) == LATEST
    open_rows = conn.execute(
        "SELECT role, until_at FROM silences WHERE ended_at IS NULL ORDER BY role"
    ).fetchall()
    assert open_rows == [("alpha", 900), ("beta", 100)]
    closed = conn.execute("SELECT until_at, ended_at FROM silences WHERE ended_at IS NOT NULL")
    assert sorted(closed.fetchall()) == [(500, 500), (700, 700), (2000, 50)]
    conn.close()
