"""A desk on PostgreSQL reached through a real PgBouncer in transaction pooling, the mode that
hands the server connection to another client at every commit: nothing deskd does may
depend on session state (no startup ``options``, no session lock, no ``SET``).

Skipped with a one-line reason where ``pgbouncer`` is not installed, except under CI=true,
where it is mandatory (``.ci/run`` installs it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from conftest import Desk, urgent
from host_procs import finish as _finish
from host_procs import host_env as _env
from host_procs import start_tick

FAKES = Path(__file__).resolve().parents[1] / "fakes"
HOSTS = ("host-a", "host-b", "host-c")


@pytest.fixture(scope="session")
def bouncer_root(pg_server: str) -> Iterator[str]:
    """A PgBouncer in transaction mode in front of the test server: its socket folder."""
    from harness.pgbouncer import Bouncer, BouncerUnavailable

    host = parse_qs(urlsplit(pg_server).query).get("host", [""])[0]
    if not host.startswith("/"):
        pytest.skip("pgbouncer tier: the test server is not on a unix socket")
    try:
        bouncer = Bouncer(host).start()
    except BouncerUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the pgbouncer tier is mandatory under CI=true: {exc}")
        pytest.skip(f"pgbouncer tier: {exc}")
    try:
        yield bouncer.root
    finally:
        bouncer.stop()


def through(url: str, bouncer_root: str) -> str:
    """The same database, reached through the bouncer."""
    from harness.pgbouncer import PORT

    dbname = urlsplit(url).path.lstrip("/")
    return f"postgresql://deskd@/{dbname}?host={bouncer_root}&port={PORT}"


@pytest.fixture
def pooled(desk: Desk, pg_database: str, bouncer_root: str, tmp_path: Path) -> Desk:
    """alpha, beta, gamma on a PostgreSQL database reached only through the bouncer."""
    url = through(pg_database, bouncer_root)
    desk.url = url
    desk.setenv("DESKD_DB", url)
    desk.monkeypatch.setenv("DESKD_DB", url)
    desk.setenv("DESKD_AGENT_CMD", str(FAKES / "fake-claude"))
    desk.monkeypatch.setenv("FAKE_ARGV_FILE", str(tmp_path / "argv.jsonl"))
    desk.ok("inbox", "list", "--for", "alpha")  # sets the schema up, through the bouncer
    return desk


def test_doctor_names_the_pooler_and_passes_its_lease_round_trip(pooled: Desk) -> None:
    checks = {c["name"]: c for c in pooled.json("doctor")["checks"]}
    assert checks["pooler"]["level"] == "ok", checks["pooler"]
    assert "pooler" in checks["pooler"]["detail"]
    assert checks["locks"]["level"] == "ok", checks["locks"]


def test_racing_ticks_through_the_pooler_launch_once_a_round_and_leave_no_lease(
    pooled: Desk, tmp_path: Path
) -> None:
    for round_ in range(2):
        urgent(pooled, "gamma", title=f"round {round_}")
        # Two ticks a host, six in all: they race on each host and across the three (each is
        # a fresh deskd process, ~0.4 CPU-s; more only adds start-up cost on two cores).
        outs = _finish([start_tick(pooled, host, "--wait") for host in HOSTS for _ in range(2)])
        launched = [d for o in outs for d in o["launched"]]  # type: ignore[attr-defined]
        assert len(launched) == 1, outs
        leases = pooled.db().execute("SELECT name FROM leases").fetchall()
        assert leases == [], "a lock outlived the tick or executor that held it"
        pooled.ok("inbox", "ack", "--for", "gamma", "--seen", role="gamma")
        pooled.advance(minutes=30)
    argv = (tmp_path / "argv.jsonl").read_text().splitlines()
    assert len(argv) == 2  # one agent process a round


def test_a_running_agent_holds_no_server_connection(
    pooled: Desk, pg_database: str, tmp_path: Path
) -> None:
    """The executor's role lock is a lease renewed over short connections: while its agent
    runs, neither it nor the pooler holds a server connection for it."""
    release = tmp_path / "release"
    agent = tmp_path / "agent.sh"
    agent.write_text(
        "#!/bin/sh\n"
        f'touch "{tmp_path}/started"\n'
        f'while [ ! -e "{release}" ]; do sleep 0.05; done\n'
        f'exec {FAKES / "fake-claude"} "$@"\n',
        encoding="utf-8",
    )
    agent.chmod(0o755)
    pooled.setenv("DESKD_AGENT_CMD", str(agent))
    urgent(pooled, "alpha")
    tick = subprocess.run(
        [sys.executable, "-m", "deskd", "tick", "--execute", "--json"],
        env=_env(pooled, "host-a"),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    (launch,) = json.loads(tick.stdout)["launched"]
    deadline = time.monotonic() + 120  # an outer bound; the event is the agent's file
    while not (tmp_path / "started").exists():
        assert time.monotonic() < deadline, "the agent never started"
        time.sleep(0.05)
    from deskd.store.db import connect

    direct = connect(pg_database, create=False, migrate=False)
    try:
        dbname = urlsplit(pg_database).path.lstrip("/")
        busy = direct.raw_execute(  # type: ignore[attr-defined]
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND state <> 'idle' "
            "AND pid <> pg_backend_pid()",
            (dbname,),
        ).fetchone()[0]
        held = direct.raw_execute(  # type: ignore[attr-defined]
            "SELECT name FROM leases"
        ).fetchall()
    finally:
        direct.close()
    assert busy == 0
    assert [tuple(r) for r in held] == [("role-alpha",)]
    release.touch()
    deadline = time.monotonic() + 120
    while True:
        row = (
            pooled.db()
            .execute("SELECT launch_status FROM attempts WHERE id = ?", (launch["attempt_id"],))
            .fetchone()
        )
        if row[0] in ("finished", "failed"):
            break
        assert time.monotonic() < deadline, f"the launch is still {row[0]}"
        time.sleep(0.05)
    assert row[0] == "finished"
    # The executor records the outcome under its lease, then releases it as it exits.
    while pooled.db().execute("SELECT name FROM leases").fetchall():
        assert time.monotonic() < deadline, "the executor's lease outlived it"
        time.sleep(0.05)


def test_a_command_at_a_full_pooler_waits_for_a_slot_instead_of_failing(
    pooled: Desk, pg_server: str, pg_database: str
) -> None:
    """A server or pooler with no slot free is tried again (with growing waits) for a
    bounded time: an agent's command waits its turn instead of exiting 3."""
    from harness.pgbouncer import Bouncer

    from deskd.store.db import connect

    host = parse_qs(urlsplit(pg_server).query).get("host", [""])[0]
    full = Bouncer(host, max_client_conn=1).start()
    try:
        url = through(pg_database, full.root)
        holder = connect(url, create=False, migrate=False)  # the only client slot
        env = {**_env(pooled, "host-a"), "DESKD_DB": url}
        cmd = subprocess.Popen(
            [sys.executable, "-m", "deskd", "inbox", "list", "--for", "alpha", "--json"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120  # outer bound; the event is the pooler's refusal
        while "no more connections allowed" not in full.log():
            assert cmd.poll() is None, cmd.communicate()
            assert time.monotonic() < deadline, "the command never reached the pooler"
            time.sleep(0.05)
        holder.close()
        out, err = cmd.communicate(timeout=120)
        assert cmd.returncode == 0, err
        assert json.loads(out) == []
    finally:
        full.stop()


def test_the_consoles_cue_moves_through_the_pooler_without_listening(pooled: Desk) -> None:
    """Transaction pooling cannot hold a LISTEN: the console's one listener sees the pooler
    and reads the write-ahead log position instead, and a command's write still moves it."""
    from deskd.config.load import load_settings
    from deskd.service.ops.console_views import change_mark
    from deskd.store import pg_listen

    settings = load_settings(pooled.env())
    before = change_mark(settings)
    assert pg_listen._listeners[settings.database].pooled
    urgent(pooled, "alpha", title="disk full")
    deadline = time.monotonic() + 120  # ends when the cue moves; only a missed write waits
    while change_mark(settings) == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert change_mark(settings) != before
