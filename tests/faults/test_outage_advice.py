"""Advice that matches the cause: each kind of outage — server down, server unreachable, lock
timeout, read-only, disk full, damage — is its own class of store error, sorted by the
driver's error code (never by its words), with its own advice, and only damage is told to
restore from a backup. Each condition is the real one: a full tmpfs, a read-only mount, a
held write lock, a file that is no database, a PostgreSQL backend ended as a server shutdown
ends it, a closed port, a read-only transaction."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from conftest import Desk
from deskd import errors
from deskd.errors import StoreError, database_unavailable
from deskd.store.db import store_error
from pg_databases import database, with_dbname


@contextmanager
def tmpfs(folder: Path, size: str = "4m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``folder`` (made here), unmounted afterwards."""
    folder.mkdir(parents=True, exist_ok=True)
    mount = ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(folder)]
    done = subprocess.run(mount, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"a full disk needs a tmpfs, and mount failed: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "--lazy", str(folder)], check=True)


def fill(folder: Path) -> None:
    """Write into ``folder`` until its file system is full."""
    with (folder / "filler").open("wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass


def remount_read_only(folder: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)


def _sqlite_failure(folder: Path, kind: str) -> StoreError:
    path = folder / "x.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE t (x BLOB)")
    conn.close()
    try:
        if kind == "read-only":
            remount_read_only(folder)
            sqlite3.connect(path).execute("INSERT INTO t VALUES (1)")
        elif kind == "disk full":
            fill(folder)
            sqlite3.connect(path).execute("INSERT INTO t VALUES (zeroblob(100000))")
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


def _closed_port() -> StoreError:
    from deskd.store.pg import open_pg

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    try:
        open_pg(f"postgresql://desk:pw@127.0.0.1:{port}/desk", busy_ms=1000, retry_s=0)
    except StoreError as exc:
        return exc
    raise AssertionError("connected to a closed port")


def _pg_failures(server: str) -> dict[str, StoreError]:
    """The PostgreSQL outages the store's own connections meet, each made for real."""
    import psycopg

    from deskd.store.pg import open_pg

    found: dict[str, StoreError] = {}

    def fails(kind: str, call: Callable[[], object]) -> None:
        try:
            call()
        except StoreError as exc:
            found[kind] = exc
        else:
            raise AssertionError(f"{kind}: no error")

    with database(server, prefix="outage") as name:
        url = with_dbname(server, name)
        with (
            closing(open_pg(url, busy_ms=100, retry_s=0)) as a,
            closing(open_pg(url, busy_ms=100)) as b,
        ):
            a.raw_execute("CREATE TABLE t (x int)")
            a.begin(write=True)  # holds the desk's write lock
            fails("pg lock timeout", lambda: b.begin(write=True))
            a.raw_execute("ROLLBACK")
            b.raw_execute("SET default_transaction_read_only = on")
            fails("pg read-only", lambda: b.raw_execute("INSERT INTO t VALUES (1)"))
            with psycopg.connect(server, autocommit=True) as admin:  # what a fast shutdown does
                admin.execute("SELECT pg_terminate_backend(%s)", (a.raw.info.backend_pid,))
            fails("pg server down", lambda: a.raw_execute("SELECT 1"))
    return found


EXPECTED: dict[str, type[StoreError]] = {
    "read-only": errors.StoreReadOnly,
    "disk full": errors.StoreFull,
    "lock timeout": errors.StoreBusy,
    "damage": errors.StoreCorrupt,
    "unreachable": errors.StoreUnreachable,
    "pg lock timeout": errors.StoreBusy,
    "pg read-only": errors.StoreReadOnly,
    "pg server down": errors.StoreServerDown,
}


def test_each_outage_kind_gets_its_own_advice_and_only_damage_a_restore(
    tmp_path: Path, pg_server: str
) -> None:
    failed: dict[str, StoreError] = {}
    for i, kind in enumerate(["read-only", "disk full", "lock timeout", "damage"]):
        with tmpfs(tmp_path / str(i)) as folder:
            failed[kind] = _sqlite_failure(folder, kind)
    failed["unreachable"] = _closed_port()
    failed |= _pg_failures(pg_server)
    assert {kind: type(exc) for kind, exc in failed.items()} == EXPECTED
    said = {kind: database_unavailable("DB", exc).message for kind, exc in failed.items()}
    advice = {kind: exc.advice for kind, exc in failed.items()}
    assert all(f"({advice[kind]})" in said[kind] for kind in said)
    kinds = {kind.removeprefix("pg ") for kind in advice}
    assert len(set(advice.values())) == len(kinds), said  # one message per kind
    for kind, text in said.items():
        assert ("backup" in text) == (kind == "damage"), (kind, text)
    assert "disk is full" in advice["disk full"] and "read-only" in advice["read-only"]
    assert "write lock" in advice["lock timeout"] and "damaged" in advice["damage"]
    assert "PostgreSQL" in advice["pg server down"] and "PostgreSQL" in advice["unreachable"]


def test_a_command_on_a_full_or_read_only_disk_says_so_and_nothing_is_damaged(desk: Desk) -> None:
    enqueue = ("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x")
    with tmpfs(desk.home / "ro") as folder:
        desk.setenv("DESKD_DB", str(folder / "deskd.db"))
        desk.ok("status")  # the database is made and migrated while there is room
        remount_read_only(folder)
        read_only = desk.run(*enqueue)
    with tmpfs(desk.home / "full") as folder:
        desk.setenv("DESKD_DB", str(folder / "deskd.db"))
        desk.ok("status")
        fill(folder)
        full = desk.run(*enqueue, "--body", "x" * 60000)
    for out, advice in ((full, errors.StoreFull.advice), (read_only, errors.StoreReadOnly.advice)):
        assert out.exit_code == 3, out
        assert f"({advice})" in out.stderr and "restore" not in out.stderr, out.stderr
        assert "nothing is damaged" in out.stderr
    assert not (desk.home / "run" / "damaged").exists()
