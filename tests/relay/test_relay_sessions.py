"""Store sessions through the host's relay (``store/relayed.py``, ``adapters/relay_session.py``)
on a real PostgreSQL server: an executor's launch writes what it writes directly without
loading psycopg; a client killed mid-transaction leaves no lock and no rows; store errors
cross as their class; without a relay a command connects directly."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_relay import BOUND_S, ended, start_relay, twin

from conftest import Desk, urgent
from deskd.adapters.relay import POOL_SIZE, answering
from deskd.adapters.relay_session import SESSION_POOL
from deskd.errors import StoreBusy, StoreIntegrityError
from deskd.store.db import connect, transaction, write_locked
from deskd.store.relayed import RelayedConnection
from tick_lock_wait import tick_waits_out_the_lock

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

FAKES = Path(__file__).resolve().parents[1] / "fakes"


@pytest.fixture
def relay(desk: Desk) -> Iterator[subprocess.Popen[bytes]]:
    desk.ok("roles")  # the database is set up before the relay serves it
    proc = start_relay(desk)
    yield proc
    ended(proc, desk.home / "run")


def through(desk: Desk, **kw: Any) -> Any:
    """A store connection as a command on this host opens it."""
    conn = connect(desk.url or "", relay=str(desk.home / "run"), **kw)
    desk._opened.append(conn)
    return conn


def test_without_a_relay_a_command_connects_directly(desk: Desk) -> None:
    desk.ok("roles")
    conn = through(desk)
    assert not isinstance(conn, RelayedConnection)
    assert conn.execute("SELECT version FROM deskd_schema").fetchone()[0] > 0


def test_a_relay_for_another_database_is_not_used(
    desk: Desk, relay: subprocess.Popen[bytes]
) -> None:
    other = (desk.url or "").replace("?", "?application_name=other&")
    conn = connect(other, relay=str(desk.home / "run"))
    desk._opened.append(conn)
    assert not isinstance(conn, RelayedConnection)


def test_statements_rows_and_transactions_go_through_the_relay(
    desk: Desk, relay: subprocess.Popen[bytes]
) -> None:
    conn = through(desk)
    assert isinstance(conn, RelayedConnection)
    row = conn.execute("SELECT version, 'x' AS mark FROM deskd_schema").fetchone()
    assert (row[1], row["mark"], row.keys()) == ("x", "x", ["version", "mark"])
    with transaction(conn):
        assert conn.in_transaction
        conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", ("relayed", "yes"))
        with pytest.raises(StoreIntegrityError), transaction(conn):  # its savepoint's
            conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", ("relayed", "no"))
    assert not conn.in_transaction
    with desk.db() as direct:
        found = direct.execute("SELECT value FROM meta WHERE key = 'relayed'").fetchall()
    assert [r[0] for r in found] == ["yes"]
    cur = conn.execute("DELETE FROM meta WHERE key = ?", ("relayed",))
    assert (cur.rowcount, cur.fetchall()) == (1, [])


def test_the_write_lock_held_elsewhere_is_store_busy_on_the_client(
    desk: Desk, relay: subprocess.Popen[bytes]
) -> None:
    conn = through(desk, busy_ms=200)
    holder = desk.db()
    with transaction(holder):
        with pytest.raises(StoreBusy):
            conn.begin(write=True)
        assert not conn.in_transaction
    with transaction(conn):  # the session goes on once the lock is free
        conn.execute("SELECT 1")


def test_a_tick_through_the_relay_waits_out_the_lock_a_command_gives_up_on(
    desk: Desk, relay: subprocess.Popen[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The tick's longer wait reaches the relay's begin (and its turn at the relay's pool).
    assert tick_waits_out_the_lock(desk, monkeypatch) == "RelayedConnection"


CLIENT = """
import sys
from deskd.store.db import connect
conn = connect(sys.argv[1], relay=sys.argv[2])
assert type(conn).__name__ == "RelayedConnection", type(conn)
conn.begin(write=True)
conn.execute("INSERT INTO meta (key, value) VALUES ('half', 'written')")
print("inside", flush=True)
sys.stdin.read()
"""


def test_a_client_killed_mid_transaction_leaves_no_lock_and_no_rows(
    desk: Desk, relay: subprocess.Popen[bytes]
) -> None:
    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT, desk.url or "", str(desk.home / "run")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert client.stdout is not None
    assert client.stdout.readline() == b"inside\n"
    probe = connect(desk.url or "", busy_ms=100)
    desk._opened.append(probe)
    assert write_locked(probe) is not None  # the client holds deskd's write lock
    client.kill()
    client.wait()
    deadline = time.monotonic() + BOUND_S
    while write_locked(probe) is not None:  # the relay saw it hang up: rolled back
        assert time.monotonic() < deadline, "the killed client's lock was never released"
    assert probe.execute("SELECT * FROM meta WHERE key = 'half'").fetchall() == []
    assert relay.poll() is None


def launch_rows(desk: Desk) -> dict[str, list[tuple[Any, ...]]]:
    """What a launch wrote, without what differs by chance (session ids, tokens, pids)."""
    with desk.db() as conn:
        attempts = conn.execute(
            "SELECT role, kind, rung, launch_status, outcome, launched_at, landed_at, "
            "finished_at, exit_code, failure_class, cost_usd FROM attempts ORDER BY id"
        ).fetchall()
        events = conn.execute("SELECT kind, role, subject FROM events ORDER BY id").fetchall()
        ledger = conn.execute(
            "SELECT role, title, notified_at, seen_at, read_at FROM items ORDER BY id"
        ).fetchall()
    return {"attempts": [tuple(r) for r in attempts], "events": [tuple(r) for r in events],
            "ledger": [tuple(r) for r in ledger]}  # fmt: skip


def a_launch(desk: Desk) -> dict[str, Any]:
    urgent(desk)
    out = desk.json("tick", "--execute", "--wait")
    (launched,) = out["launched"]
    return dict(launched)


def test_an_executor_through_the_relay_writes_what_it_writes_directly(
    desk: Desk,
    relay: subprocess.Popen[bytes],
    pg_server: str,
    pg_template: str,
    tmp_path: Path,
) -> None:
    hidden = tmp_path / "no_psycopg"
    hidden.mkdir()
    (hidden / "psycopg.py").write_text("raise ImportError('psycopg is hidden here')\n")
    desk.setenv("DESKD_AGENT_CMD", str(FAKES / "fake-claude"))
    for other in twin(desk, pg_server, pg_template, tmp_path):
        other.setenv("DESKD_AGENT_CMD", str(FAKES / "fake-claude"))
        other.setenv("DESKD_HOOK_RELAY", "off")  # no relay for the twin: all of it direct
        other.setenv("DESKD_DB_RELAY", "off")
        alone = a_launch(other)
        assert not answering(str(other.home / "run"))
        # The executor and its agent's hooks start with psycopg hidden: they can only have
        # reached the database through the relay (the tick here runs in-process).
        desk.monkeypatch.setenv("PYTHONPATH", str(hidden))
        relayed = a_launch(desk)
        desk.monkeypatch.delenv("PYTHONPATH")
        assert relayed.keys() == alone.keys()
        rows = launch_rows(desk)
        assert rows == launch_rows(other)
        assert [a[3] for a in rows["attempts"]] == ["finished"], rows
    log = (desk.home / "logs").glob("*.log")
    assert not any("psycopg is hidden" in p.read_text() for p in log)
    assert relay.poll() is None


def test_commands_use_the_relay_unless_it_is_turned_off(
    desk: Desk, relay: subprocess.Popen[bytes]
) -> None:
    from deskd.service.desk.context import open_context

    ctx = open_context()
    try:
        assert isinstance(ctx.conn, RelayedConnection)
    finally:
        ctx.close()
    desk.monkeypatch.setenv("DESKD_DB_RELAY", "off")
    ctx = open_context()
    try:
        assert not isinstance(ctx.conn, RelayedConnection)
    finally:
        ctx.close()
    out = desk.run("status", DESKD_DB_RELAY="never")
    assert out.exit_code != 0 and "DESKD_DB_RELAY" in out.stderr and "auto" in out.stderr


MANY = 10
SMALL_SERVER = 8
"""``max_connections`` of the server below: fewer than one per executor."""


@pytest.fixture
def small_server() -> Iterator[str]:
    """A server of its own whose connection slots are fewer than the agents that run."""
    from harness.pgcluster import Cluster, ClusterUnavailable

    cluster = Cluster(settings={"max_connections": str(SMALL_SERVER), "max_wal_senders": "0",
                                "superuser_reserved_connections": "0"})  # fmt: skip
    try:
        cluster.start()
    except ClusterUnavailable as exc:
        pytest.skip(str(exc))
    try:
        import psycopg

        with psycopg.connect(cluster.url(), autocommit=True) as admin:
            admin.execute("CREATE DATABASE desk")
        yield cluster.url("desk")
    finally:
        cluster.stop()


class Peak(threading.Thread):
    """The most connections the desk's database had at once, sampled from a connection of
    its own (not counted)."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.peak, self.stopping = url, 0, threading.Event()

    def run(self) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True, application_name="peak") as conn:
            while not self.stopping.wait(0.05):
                row = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = 'desk' "
                    "AND application_name <> 'peak'"
                ).fetchone()
                self.peak = max(self.peak, int(row[0]) if row else 0)


def test_many_executors_at_once_on_a_small_server_all_run_within_the_relays_connections(
    desk: Desk, small_server: str, tmp_path: Path
) -> None:
    roles = [f"r{i:02d}" for i in range(MANY)]
    desk.write_desk(
        '[desk]\nname = "many"\ntimezone = "UTC"\ninbox_sources = ["alert"]\n'
        + "".join(f'\n[[roles]]\nname = "{r}"\n' for r in roles)
    )
    many = Desk(desk.home, desk.monkeypatch, url=small_server)
    many.extra = {**desk.extra, "DESKD_DB": small_server}
    many.setenv("DESKD_AGENT_CMD", str(FAKES / "fake-claude"))
    desk.monkeypatch.setenv("DESKD_DB", small_server)
    many.ok("roles")
    proc = start_relay(many)
    peak = Peak(small_server)
    try:
        peak.start()
        for role in roles:
            urgent(many, role=role)
        out = many.json("tick", "--execute", "--wait")
    finally:
        peak.stopping.set()
        ended(proc, desk.home / "run")
    peak.join()
    assert len(out["launched"]) == MANY
    with connect(small_server) as conn:
        rows = conn.execute("SELECT role, launch_status FROM attempts ORDER BY role").fetchall()
        hook_log = desk.home / "logs" / "hook.log"
    assert [tuple(r) for r in rows] == [(r, "finished") for r in roles]
    assert not hook_log.exists() or hook_log.read_text() == ""
    # The relay's hook writers and sessions, and nothing else: every executor, hook and
    # command of the host went through them.
    assert 0 < peak.peak <= POOL_SIZE + SESSION_POOL < SMALL_SERVER, peak.peak


def test_a_connection_kept_while_the_relay_stops_goes_on_directly(
    desk: Desk, relay: subprocess.Popen[bytes]
) -> None:
    conn = through(desk)
    assert isinstance(conn, RelayedConnection)
    with transaction(conn):
        conn.execute("INSERT INTO meta (key, value) VALUES ('before', 'relayed')")
    ended(relay, desk.home / "run")  # as an idle relay exits while an agent runs
    with transaction(conn):  # the executor's next write
        conn.execute("INSERT INTO meta (key, value) VALUES ('after', 'direct')")
    found = conn.execute("SELECT key FROM meta WHERE value IN ('relayed', 'direct')").fetchall()
    assert sorted(r["key"] for r in found) == ["after", "before"]
    assert not conn.in_transaction
