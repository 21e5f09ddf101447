"""The PostgreSQL backend's own promises: the statement rewrite, the connection adapter's
transactions and errors, migrations once under an advisory lock, lease locks that no connection holds, `deskd doctor` and `deskd migrate-db` on a real server."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import Desk, urgent
from deskd.errors import StoreBusy, StoreIntegrityError
from deskd.store.db import connect, redact, transaction
from deskd.store.dialect import Sql, placeholders

# -- the dialect (pure: no server) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "sent"),
    [
        ("SELECT * FROM t WHERE a = ? AND b = ?", "SELECT * FROM t WHERE a = %s AND b = %s"),
        ("SELECT '?', 'it''s ?' FROM t WHERE x = ?", "SELECT '?', 'it''s ?' FROM t WHERE x = %s"),
        ("SELECT 5 % 2, '10%' FROM t", "SELECT 5 %% 2, '10%%' FROM t"),
        # Nothing else is rewritten: what differs is written as an Sql pair.
        ("WHERE role IS ? AND MAX(a, b) > 1", "WHERE role IS %s AND MAX(a, b) > 1"),
    ],
)
def test_only_the_placeholders_are_rewritten_for_postgresql(sql: str, sent: str) -> None:
    assert placeholders(sql) == sent


def test_each_backend_runs_its_own_half_of_a_pair(tmp_path: Path, pg_database: str) -> None:
    pair = Sql(
        sqlite="SELECT 'sqlite', MAX(1, 2)", postgresql="SELECT 'postgresql', GREATEST(1, 2)"
    )
    for target in (str(tmp_path / "d.db"), pg_database):
        conn = connect(target)
        assert tuple(conn.execute(pair).fetchone()) == (conn.dialect, 2)
        conn.close()


def test_it_never_prints_a_password() -> None:
    assert redact("postgresql://desk:s3cret@db.internal:5432/desk") == (
        "postgresql://desk:***@db.internal:5432/desk"
    )
    assert redact("postgresql://desk@/desk?host=/run/pg") == "postgresql://desk@/desk?host=/run/pg"
    assert redact("/srv/desk/data/deskd.db") == "/srv/desk/data/deskd.db"


def test_settings_keep_a_url_and_refuse_another_scheme(tmp_path: Path) -> None:
    from deskd.config.settings_model import validate_settings
    from deskd.errors import SettingsError

    url = "postgresql://desk@db.internal/desk"
    s = validate_settings({"DESKD_HOME": str(tmp_path), "DESKD_DATABASE_URL": url})
    assert s.database == url and s.shared_database
    s = validate_settings({"DESKD_HOME": str(tmp_path), "DESKD_DB": "data/x.db"})
    assert not s.shared_database and s.database.endswith("x.db")
    with pytest.raises(SettingsError, match=r"DESKD_DB.*postgresql://"):
        validate_settings({"DESKD_HOME": str(tmp_path), "DESKD_DB": "mysql://desk@db/desk"})


def test_a_sqlite_desk_never_loads_psycopg(tmp_path: Path) -> None:
    code = (
        "import sys; from deskd.store.db import connect, transaction; "
        "from deskd.store.events import add_event; "
        f"c = connect({str(tmp_path / 'd.db')!r}); "
        "t = transaction(c); t.__enter__(); add_event(c, at=1, kind='x'); t.__exit__(None, None, None); "
        "sys.exit(1 if any(m.startswith('psycopg') for m in sys.modules) else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


# -- a real server -----------------------------------------------------------------------------

_fork = multiprocessing.get_context("fork")


def _open_and_write(url: str, barrier: Any, index: int) -> None:
    from deskd.store.events import add_event

    barrier.wait(timeout=60)
    conn = connect(url)
    with transaction(conn):
        add_event(conn, at=1_796_133_600_000 + index, kind="test.opened", subject=str(index))
    conn.close()


def test_eight_processes_migrate_a_fresh_database_once(pg_database: str) -> None:
    from deskd.store.migrations import LATEST, schema_version

    barrier = _fork.Barrier(8)
    procs = [
        _fork.Process(target=_open_and_write, args=(pg_database, barrier, i)) for i in range(8)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=60)
    assert [p.exitcode for p in procs] == [0] * 8
    conn = connect(pg_database)
    assert schema_version(conn) == LATEST
    assert conn.execute("SELECT COUNT(*) FROM deskd_schema").fetchone()[0] == 1
    ids = [r[0] for r in conn.execute("SELECT id FROM events ORDER BY id")]
    assert ids == list(range(1, 9))
    conn.close()


def test_transactions_behave_as_on_sqlite(pg_database: str) -> None:
    from deskd.store.events import add_event

    conn = connect(pg_database)
    with pytest.raises(StoreIntegrityError), transaction(conn):
        add_event(conn, at=1, kind="kept?")
        conn.execute(
            "INSERT INTO sessions (role, state, started_at) VALUES ('nobody', 'working', 1)"
        )
    assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0
    with transaction(conn):
        first = add_event(conn, at=1, kind="outer")
        with pytest.raises(RuntimeError), transaction(conn):
            add_event(conn, at=2, kind="inner")
            raise RuntimeError("inner only")
    assert [r["kind"] for r in conn.execute("SELECT kind FROM events")] == ["outer"]
    row = conn.execute("SELECT * FROM events WHERE id = ?", (first,)).fetchone()
    assert row["kind"] == row[2] == "outer" and "detail" in list(row.keys())
    conn.close()


def test_a_writer_waits_for_the_write_lock_then_gives_up(pg_database: str) -> None:
    holder = connect(pg_database)
    waiter = connect(pg_database, busy_ms=300)
    holder.begin(write=True)
    try:
        with pytest.raises(StoreBusy, match="lock"), transaction(waiter):
            pass
        assert waiter.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0  # reads go on
    finally:
        holder.execute("ROLLBACK")
    with transaction(waiter):
        pass
    holder.close()
    waiter.close()


def test_the_busy_timeout_is_the_write_transactions_own_and_the_urls_options_are_kept(
    pg_database: str,
) -> None:
    """No session state (a pooler in transaction mode shares the server connection): the
    lock timeout is set inside each write transaction, and nothing outlives it."""
    from deskd.store.db import DatabaseMissing

    with pytest.raises(DatabaseMissing):  # never set up: refused, and left so
        connect(pg_database, create=False)
    sep = "&" if "?" in pg_database else "?"
    conn = connect(f"{pg_database}{sep}options=-c%20work_mem%3D7MB", busy_ms=1234)
    raw = conn.raw_execute  # type: ignore[attr-defined]
    default = raw("SHOW lock_timeout").fetchone()[0]
    assert default != "1234ms"
    with transaction(conn):
        assert raw("SHOW lock_timeout").fetchone()[0] == "1234ms"
    assert raw("SHOW lock_timeout").fetchone()[0] == default
    assert raw("SHOW work_mem").fetchone()[0] == "7MB"
    conn.close()
    connect(pg_database, create=False).close()  # set up by the open above


def test_a_lease_is_refused_while_live_and_freed_when_its_process_dies(pg_database: str) -> None:
    """A lease held by a process is refused to others; once that process is gone (kill -9),
    a holder on the same machine is seen gone at once, without waiting for the lapse."""
    from deskd.adapters.locks import gone, me
    from deskd.store import locks

    connect(pg_database).close()  # migrated
    code = (
        "import sys, time; from deskd.store.db import connect; from deskd.store import locks; "
        "from deskd.adapters.locks import me; "
        f"c = connect({pg_database!r}); "
        "assert locks.take(c, 'role-alpha', owner=me('h1'), token=7, ttl_ms=600000); "
        "print('held', flush=True); time.sleep(60)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        observer = connect(pg_database)
        found = locks.holder(observer, "role-alpha")
        assert found is not None and found.token == 7 and not gone(found.owner)
        assert not locks.take(observer, "role-alpha", owner=me("h2"), token=8, ttl_ms=60_000)
        assert locks.holder(observer, "role-beta") is None
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert gone(found.owner)
    assert locks.replace(observer, "role-alpha", dead=7, owner=me("h2"), token=8, ttl_ms=60_000)
    # A second taker that also saw the holder gone loses: the lease changed hands once.
    assert not locks.replace(observer, "role-alpha", dead=7, owner=me("h3"), token=9, ttl_ms=60_000)
    assert locks.holds(observer, "role-alpha", token=8)
    assert not locks.holds(observer, "role-alpha", token=7)
    observer.close()


def test_a_lapsed_lease_can_be_taken_and_its_holder_is_fenced(pg_database: str) -> None:
    from deskd.store import locks

    conn = connect(pg_database)
    assert locks.take(conn, "tick", owner="h1 other-machine 1 1", token=1, ttl_ms=-1)
    assert locks.holder(conn, "tick") is None  # lapsed: nobody holds it
    assert locks.holds(conn, "tick", token=1)  # ... but nobody took it over yet
    assert locks.take(conn, "tick", owner="h2 other-machine 2 2", token=2, ttl_ms=60_000)
    assert not locks.holds(conn, "tick", token=1)
    assert not locks.renew(conn, "tick", token=1, ttl_ms=60_000)
    assert locks.renew(conn, "tick", token=2, ttl_ms=60_000)
    locks.release(conn, "tick", token=1)  # not the holder's: nothing happens
    assert locks.holder(conn, "tick") is not None
    locks.release(conn, "tick", token=2)
    assert locks.holder(conn, "tick") is None
    conn.close()


@pytest.mark.sqlite_only  # the desk fixture's own database is not used: pg_database is
def test_doctor_checks_connection_server_schema_and_locks(desk: Desk, pg_database: str) -> None:
    desk.setenv("DESKD_DB", pg_database)
    out = desk.run("doctor", "--json")
    checks = {c["name"]: c for c in json.loads(out.stdout)["checks"]}
    assert checks["database"]["level"] == "ok" and checks["server"]["level"] == "ok"
    assert checks["schema"]["level"] == "warn"  # nothing set it up yet
    assert checks["locks"]["level"] == "warn", checks["locks"]  # no leases table yet
    assert checks["pooler"]["level"] == "ok", checks["pooler"]
    desk.ok("inbox", "list", "--for", "alpha")
    checks = {c["name"]: c for c in json.loads(desk.run("doctor", "--json").stdout)["checks"]}
    assert checks["schema"]["level"] == "ok"
    assert checks["locks"]["level"] == "ok", checks["locks"]
    gone = pg_database.rsplit("/", 1)[0] + "/no_such_database?" + pg_database.split("?", 1)[1]
    out = desk.run("doctor", "--json", DESKD_DB=gone)
    assert out.exit_code == 1
    (db,) = [c for c in json.loads(out.stdout)["checks"] if c["name"] == "database"]
    assert db["level"] == "fail" and "no_such_database" in db["detail"]


@pytest.mark.sqlite_only  # copies the SQLite desk into pg_database
def test_migrate_db_copies_a_desk_that_then_runs_on_postgresql(
    desk: Desk, pg_database: str
) -> None:
    for title in ("disk 91%", "cpu 99%"):
        urgent(desk, "alpha", title)
    desk.ok("send", "--from", "beta", "--to", "alpha", "--subject", "hi", "--body", "b")
    desk.json("tick", "--execute")
    before = desk.json("inbox", "list", "--for", "alpha", "--all")
    src = str(desk.db_path)
    out = desk.json("migrate-db", "--from", src, "--to", pg_database)
    assert out["rows"]["items"] == 3 and out["rows"]["roles"] == 3
    desk.setenv("DESKD_DB", pg_database)
    assert desk.json("inbox", "list", "--for", "alpha", "--all") == before
    new = desk.json("inbox", "enqueue", "--for", "beta", "--source", "alert", "--title", "next")
    assert new["id"] == 4  # ids continue after the copied ones
    again = desk.run("migrate-db", "--from", src, "--to", pg_database, "--json")
    assert again.exit_code == 1 and json.loads(again.stderr)["error"]["code"] == "target_not_empty"
    bad = desk.run("migrate-db", "--from", src, "--to", "/tmp/x.db", "--json")
    assert bad.exit_code == 1 and "postgresql://" in bad.stderr


@pytest.mark.sqlite_only
def test_migrate_db_from_a_damaged_file_says_so_and_leaves_the_target_empty(
    desk: Desk, pg_database: str
) -> None:
    from db_damage import damage_a_middle_leaf_of_items, populated

    populated(desk)
    damage_a_middle_leaf_of_items(desk.db_path)
    out = desk.run("migrate-db", "--from", str(desk.db_path), "--to", pg_database)
    assert out.exit_code == 3 and "damaged" in out.stderr and "backup" in out.stderr, out.stderr
    conn = connect(pg_database, migrate=False)
    try:
        tables = conn.execute(
            "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
    finally:
        conn.close()
    assert tables["n"] == 0  # no empty schema left behind
