"""Several processes opening a fresh database at once all succeed, and each migration runs
exactly once (lesson 41)."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import Desk
from deskd.store import migrations
from deskd.store.db import connect, transaction
from deskd.store.events import add_event
from deskd.store.migrations import LATEST, schema_version

PROCESSES = 8
CLI_PROCESSES = 4  # each is a full interpreter start; the fork test above covers 8
_fork = multiprocessing.get_context("fork")


def _open_and_write(path: str, barrier: Any, index: int) -> None:
    barrier.wait(timeout=60)
    conn = connect(path)
    with transaction(conn):
        add_event(conn, at=1_796_133_600_000 + index, kind="test.opened", subject=str(index))
    conn.close()


def test_it_lets_8_processes_open_a_fresh_database_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "data" / "deskd.db"
    log = tmp_path / "migrations.log"
    real = migrations.statements

    def logged(script: str, dialect: str = "sqlite") -> list[str]:
        # One line per migration run, appended atomically by whichever process ran it.
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"{migrations.MIGRATIONS.index(script) + 1} {os.getpid()}\n")
        return real(script, dialect)

    monkeypatch.setattr(migrations, "statements", logged)
    barrier = _fork.Barrier(PROCESSES)
    workers = [
        _fork.Process(target=_open_and_write, args=(str(path), barrier, i))
        for i in range(PROCESSES)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
    assert [w.exitcode for w in workers] == [0] * PROCESSES

    ran = [int(line.split()[0]) for line in log.read_text().splitlines()]
    assert sorted(ran) == list(range(1, LATEST + 1))  # each version exactly once
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    subjects = conn.execute("SELECT subject FROM events WHERE kind = 'test.opened'").fetchall()
    assert sorted(int(s[0]) for s in subjects) == list(range(PROCESSES))


@pytest.mark.slow
@pytest.mark.empty_database  # the processes race to migrate it
def test_it_lets_cli_processes_enqueue_into_a_fresh_desk_at_once(desk: Desk) -> None:
    deskd = Path(sys.executable).parent / "deskd"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(desk.env())
    procs = [
        subprocess.Popen(
            [
                str(deskd),
                "inbox",
                "enqueue",
                "--for",
                "alpha",
                "--source",
                "alert",
                "--title",
                f"t{i}",
                "--json",
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(CLI_PROCESSES)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * CLI_PROCESSES, [e for _, e in outs]
    conn = desk.db()
    assert schema_version(conn) == LATEST
    assert conn.execute("SELECT COUNT(*) FROM items").fetchone()[0] == CLI_PROCESSES
    roles = conn.execute("SELECT name, enabled FROM roles ORDER BY name").fetchall()
    assert [tuple(r) for r in roles] == [("alpha", 1), ("beta", 1), ("gamma", 1)]
    synced = conn.execute("SELECT COUNT(*) FROM events WHERE kind = 'roles.synced'").fetchone()
    assert synced[0] == 1
