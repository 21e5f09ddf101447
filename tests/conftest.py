"""Shared fixtures: a three-role desk in America/New_York with a pinned clock, and a CLI runner.

Helpers specific to one area live in that area's test files (or a conftest in a subfolder).
It runs past 400 lines: the desk fixture, its PostgreSQL databases (one cluster per worker,
databases pooled per worker) and the leak check are one lifecycle, read together.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from cpu_log import pytest_runtest_protocol  # noqa: F401  (a hook: DESKD_TEST_CPU=FILE)
from deskd.cli.main import cli as deskd_cli
from pg_databases import (  # noqa: F401  (fixtures, found by pytest through this import)
    pg_database,
    pg_fixture_for,
    pg_migrated_database,
    pg_pool,
    pg_template,
)

NOW = "2026-12-01T14:00:00Z"  # 09:00 in America/New_York

GIVEN_PG_URL = os.environ.get("DESKD_TEST_PG_URL") or None
"""A PostgreSQL server to test against, read when the test session starts (on every xdist
worker): the ``desk`` fixture clears every ``DESKD_*`` variable before a test's fixtures
first ask for ``pg_server``, so reading it there would see it only on the worker whose first
PostgreSQL test came before any desk."""

DESK_TOML = """\
[desk]
name = "test"
timezone = "America/New_York"
inbox_sources = ["alert", "signal"]

[[roles]]
name = "alpha"
title = "Alpha"

[[roles]]
name = "beta"
title = "Beta"

[[roles]]
name = "gamma"
title = "Gamma"
"""


@dataclass
class Outcome:
    """What one CLI call did: exit code, stdout, stderr, and the JSON it printed."""

    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)

    def error(self) -> dict[str, Any]:
        return dict(json.loads(self.stderr)["error"])


class Desk:
    """A desk folder with a pinned clock; ``run`` drives the real CLI in-process."""

    def __init__(self, home: Path, monkeypatch: pytest.MonkeyPatch, url: str | None = None) -> None:
        self.home = home
        self.monkeypatch = monkeypatch
        self.url = url  # a PostgreSQL desk's DESKD_DB; None: the SQLite file under data/
        self._opened: list[Any] = []
        self.now = datetime.fromisoformat(NOW.replace("Z", "+00:00"))
        self.role: str | None = None
        self.extra: dict[str, str] = {}

    def setenv(self, name: str, value: str) -> None:
        """A DESKD_* variable every later call of this desk gets (others: use monkeypatch)."""
        self.extra[name] = value

    @property
    def db_path(self) -> Path:
        return self.home / "data" / "deskd.db"

    @property
    def backend(self) -> str:
        return "sqlite" if self.url is None else "postgresql"

    @property
    def db_target(self) -> str:
        """What DESKD_DB names: the file, or the PostgreSQL URL."""
        return self.url or str(self.db_path)

    def write_desk(self, text: str) -> None:
        (self.home / "deskd.toml").write_text(text, encoding="utf-8")

    def advance(self, **delta: float) -> None:
        self.now = self.now + timedelta(**delta)

    @property
    def now_iso(self) -> str:
        return self.now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"

    @property
    def now_ms(self) -> int:
        return int(self.now.timestamp() * 1000)

    def env(self, role: str | None = None, **extra: str) -> dict[str, str]:
        env = {"DESKD_HOME": str(self.home), "DESKD_NOW": self.now_iso, **self.extra}
        who = role if role is not None else self.role
        if who:
            env["DESKD_ROLE"] = who
        env.update(extra)
        return env

    def run(self, *args: str, role: str | None = None, **extra_env: str) -> Outcome:
        runner = CliRunner()
        env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("DESKD_")}
        env.update(self.env(role, **extra_env))
        result: Result = runner.invoke(deskd_cli, list(args), env=env, catch_exceptions=False)
        return Outcome(result.exit_code, result.stdout, result.stderr)

    def ok(self, *args: str, role: str | None = None, **extra_env: str) -> Outcome:
        out = self.run(*args, role=role, **extra_env)
        assert out.exit_code == 0, f"deskd {' '.join(args)} -> {out.exit_code}\n{out.stderr}"
        return out

    def json(self, *args: str, role: str | None = None, **extra_env: str) -> Any:
        return self.ok(*args, "--json", role=role, **extra_env).json()

    def db(self) -> Any:
        """A connection to the desk's database (for PostgreSQL: deskd's adapter, autocommit;
        for SQLite: the store's connection class, sqlite3's implicit transactions)."""
        if self.url is not None:
            from deskd.store.db import connect

            conn = connect(self.url)
            self._opened.append(conn)
            return _Closing(conn)
        from deskd.store.db import SqliteConnection

        conn = sqlite3.connect(self.db_path, factory=SqliteConnection)
        conn.row_factory = sqlite3.Row
        return conn

    @contextmanager
    def holding(self, name: str) -> Iterator[None]:
        """Hold the desk's lock ``name`` (``tick``, ``role-alpha``) from outside, as another
        process (on another host, for PostgreSQL) would."""
        if self.url is None:
            from deskd.adapters.locks import try_lock

            with try_lock(self.home / "run" / f"{name}.lock"):
                yield
            return
        import os

        from deskd.adapters.locks import me
        from deskd.store import locks

        conn = self.db()
        token = int.from_bytes(os.urandom(7), "big")
        assert locks.take(conn, name, owner=me("elsewhere"), token=token, ttl_ms=600_000)
        try:
            yield
        finally:
            locks.release(conn, name, token=token)

    def close(self) -> None:
        for conn in self._opened:
            conn.close()
        self._opened.clear()

    def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every table (sqlite_sequence included): for "changed nothing" checks."""
        if self.url is not None:
            return _pg_dump(self.url)
        if not self.db_path.exists():
            return {}
        conn = sqlite3.connect(self.db_path)
        try:
            names = [
                r[0]
                for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
                )
            ]
            return {
                n: sorted(conn.execute(f"SELECT * FROM {n}").fetchall(), key=repr) for n in names
            }
        finally:
            conn.close()


def _pg_dump(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table and every sequence's position, like ``Desk.dump`` on SQLite."""
    from deskd.store.pg import open_pg

    conn = open_pg(url, busy_ms=5000)
    try:
        names = [
            r[0]
            for r in conn.raw_execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = 'public' ORDER BY table_name"
            ).fetchall()
        ]
        out = {
            n: sorted((tuple(r) for r in conn.raw_execute(f"SELECT * FROM {n}")), key=repr)
            for n in names
        }
        out["sequences"] = [
            tuple(r)
            for r in conn.raw_execute(
                "SELECT sequencename, last_value FROM pg_sequences ORDER BY sequencename"
            )
        ]
        untouched = not any(
            rows for n, rows in out.items() if n not in ("deskd_schema", "sequences")
        )
        if "deskd_schema" in out and untouched and all(r[1] is None for r in out["sequences"]):
            return {}  # the migrated schema and nothing else: SQLite's "no file yet"
        return out
    finally:
        conn.close()


class _Closing:
    """A test's PostgreSQL connection: ``with desk.db() as conn`` closes it at the block's end
    (deskd's own connection is no context manager); any other use reaches the connection."""

    def __init__(self, conn: Any) -> None:
        object.__setattr__(self, "_conn", conn)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._conn, name, value)  # a test's ``conn.busy_ms = …`` is the connection's

    def __enter__(self) -> Any:
        return self._conn

    def __exit__(self, *exc: object) -> None:
        self._conn.close()


def urgent(desk: Desk, role: str = "alpha", title: str = "disk 91%") -> int:
    """Enqueue an urgent alert for ``role`` through the CLI; returns the item id."""
    out = desk.json(
        "inbox",
        "enqueue",
        "--for",
        role,
        "--source",
        "alert",
        "--title",
        title,
        "--priority",
        "urgent",
    )
    return int(out["id"])


@pytest.fixture
def desk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str, request: pytest.FixtureRequest
) -> Iterator[Desk]:
    """alpha, beta, gamma in America/New_York; the clock pinned at 2026-12-01 09:00 local.

    On the ``postgresql`` backend the desk's DESKD_DB is a database of its own: under the
    BOTH_BACKENDS folders one from the worker's pool, holding what the migrated template holds
    (what deskd's first command would have made of an empty one), unless the test is marked
    ``empty_database``; elsewhere empty.
    """
    for key in list(os.environ):
        if key.startswith("DESKD_"):
            monkeypatch.delenv(key)
    home = tmp_path / "desk"
    home.mkdir()
    url = request.getfixturevalue(pg_fixture_for(request)) if backend == "postgresql" else None
    d = Desk(home, monkeypatch, url=url)
    d.write_desk(DESK_TOML)
    monkeypatch.setenv("DESKD_HOME", str(home))
    # The relay is on, as in production: on PostgreSQL an executing tick starts the session
    # hook's relay and the agents' hooks go through it; the teardown below stops it.
    if url is not None:
        d.setenv("DESKD_DB", url)
        monkeypatch.setenv("DESKD_DB", url)
    before = set(_pids())
    yield d
    d.close()
    if "deskd.store.pg_listen" in sys.modules:  # a console's listener read the change mark
        sys.modules["deskd.store.pg_listen"].stop_listening()
    from deskd.relay.server import stop as stop_relay

    marker = f"DESKD_HOME={home}".encode()
    stop_relay(str(home / "run"))  # an executing tick on PostgreSQL starts the hook relay
    _stop_starting_relays(marker, before)
    leaked = _leaked(marker, before)
    if leaked:
        pytest.fail(f"the test left processes of its desk running: {leaked} (killed now)")


def _stop_starting_relays(marker: bytes, before: set[int]) -> None:
    """SIGTERM the desk's relays that hold no lock yet (started by a tick just before the test
    ended): ``stop`` finds a relay by its lock, and one still starting would outlive the test."""
    import signal

    for pid in processes_with(marker, skip=before):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                argv = fh.read().split(b"\0")
            if argv[-2:-1] == [b"relay"]:  # python -m deskd relay, or deskd relay
                os.kill(pid, signal.SIGTERM)
        except OSError:
            continue


def _pids() -> list[int]:
    try:
        return [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []


def processes_with(
    marker: bytes, *, skip: set[int] | frozenset[int] = frozenset(), where: str = "environ"
) -> list[int]:
    """Live (not zombie) processes whose environment holds ``marker`` (``NAME=value``), or
    with ``where="cmdline"`` whose command line has it as one argument."""
    found = []
    for pid in _pids():
        if pid in skip or pid == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                if fh.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue
            with open(f"/proc/{pid}/{where}", "rb") as fh:
                if marker in fh.read().split(b"\0"):
                    found.append(pid)
        except (OSError, IndexError):
            continue
    return found


def _leaked(marker: bytes, before: set[int], grace_s: float = 120.0) -> list[int]:
    """Processes started during the test that carry the desk's marker and are still alive
    after a grace period (an executor the test did not wait for may be finishing); killed.

    The wait ends as soon as they are gone; the bound is generous because a loaded machine
    can take seconds to let a finishing executor exit, and only a real leak reaches it."""
    import signal
    import time

    deadline = time.monotonic() + grace_s
    while True:
        alive = processes_with(marker, skip=before)
        if not alive or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    for pid in alive:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return alive


@pytest.fixture(autouse=True)
def recorded_launches(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Under tests/wake and tests/meetings, the tick's launcher is a recorder at its boundary.

    Those tests judge what the tick records; the executor's real processes are tested in
    tests/executor, so no background executor races the assertions here.
    """
    started: list[int] = []
    if not {"wake", "meetings"} & set(request.node.path.parts):
        return started
    from deskd.service.engine.dispatch import Dispatched

    def record(ctx: object, attempt_id: int, role: str) -> Dispatched:
        started.append(attempt_id)
        return Dispatched(attempt_id=attempt_id, role=role, pid=0)

    monkeypatch.setattr("deskd.service.engine.tick.start_executor", record)
    return started


# -- backends: every store-backed suite runs on SQLite and PostgreSQL ---------------------------

BOTH_BACKENDS = {
    "store",
    "events",
    "replies",
    "wake",
    "executor",
    "hosts",
    "items",
    "meetings",
    "tasks",
    "pager",
    "routing",
}
"""Test folders whose ``desk`` tests run once per backend (``test_x[sqlite]``, ``[postgresql]``)."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" not in metafunc.fixturenames or metafunc.definition.get_closest_marker(
        "sqlite_only"
    ):
        return
    own = metafunc.definition.iter_markers("parametrize")
    if any(m.args and m.args[0] == "backend" for m in own):
        return  # the test names its backends itself
    if BOTH_BACKENDS & set(Path(str(metafunc.definition.path)).parts):
        metafunc.parametrize("backend", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """``sqlite`` unless the test is parametrised over both backends."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A PostgreSQL server's admin URL: ``DESKD_TEST_PG_URL``, or a throwaway cluster started
    for this test session (and stopped after it). Without one the PostgreSQL tests skip,
    except under CI=true, where they are mandatory."""
    if GIVEN_PG_URL:
        yield GIVEN_PG_URL
        return
    from harness.pgcluster import Cluster, ClusterUnavailable  # bench/harness: pytest's pythonpath

    try:
        import psycopg  # noqa: F401
    except ImportError:
        _no_postgres("psycopg is not installed (pip install -e '.[pg]')")
    # Prepared transactions allowed, so the pool's reset of them is tested (tests/test_pg_pool.py).
    cluster = Cluster(settings={"max_prepared_transactions": "4"})
    try:
        cluster.start()
    except ClusterUnavailable as exc:
        _no_postgres(str(exc))
    try:
        yield cluster.url()
    finally:
        cluster.stop()


def _no_postgres(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL is required under CI: {reason}")
    pytest.skip(f"no PostgreSQL: {reason}")
