"""How many database connections an executor opens, and how long it keeps them: one from its
first read to its agent's start, none while the agent runs but for each write it calls for,
one after; on a PostgreSQL desk at most ``DESKD_EXECUTOR_CONNECTIONS`` of a host's executors
are connected at once (``run/connection-K.lock``), the others waiting their turn."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Desk, urgent

FAKES = Path(__file__).resolve().parents[1] / "fakes"
BOUND_S = 300.0
"""A bound for a hang, not a measure: the box is heavily loaded."""


def planned(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> int:
    """An executing tick that records alpha's launch, its executor not started: the id
    ``deskd agent run`` takes."""
    from deskd.service.engine.dispatch import Dispatched

    def record(ctx: object, attempt_id: int, role: str) -> Dispatched:
        return Dispatched(attempt_id=attempt_id, role=role, pid=0)

    monkeypatch.setattr("deskd.service.engine.tick.start_executor", record)
    for name, value in {
        "DESKD_NOW": desk.now_iso,
        "DESKD_AGENT_CMD": str(FAKES / "fake-claude"),
    }.items():
        desk.setenv(name, value)
        monkeypatch.setenv(name, value)  # for the executor run in this process
    urgent(desk)
    (launched,) = desk.json("tick", "--execute")["launched"]
    return int(launched["attempt_id"])


def test_an_executor_connects_once_before_its_agent_and_holds_none_while_it_runs(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deskd.service.desk import context
    from deskd.service.desk.context import open_context
    from deskd.service.engine import executor

    attempt_id = planned(desk, monkeypatch)
    seen: list[str] = []
    connect, stream = context.connect, executor.stream_process

    def counted(*args: object, **kwargs: object) -> object:
        seen.append("connect")
        return connect(*args, **kwargs)  # type: ignore[arg-type]

    def agent(*args: object, **kwargs: object) -> object:
        seen.append("agent starts")
        try:
            return stream(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            seen.append("agent ended")

    monkeypatch.setattr(context, "connect", counted)
    monkeypatch.setattr(executor, "stream_process", agent)
    ctx = open_context()
    try:
        result = executor.run_launch(ctx, attempt_id)
    finally:
        ctx.close()
    assert (result.status, result.landed) == ("finished", True)
    # The read, the lease, the claim, the session and the run's count on one connection ...
    assert seen[: seen.index("agent starts") + 1] == ["connect", "agent starts"]
    # ... closed when the agent starts: each write the stream calls for (a heartbeat, the
    # landing) connects anew, and the finish, the hand-off check and the release share one.
    during = seen[seen.index("agent starts") + 1 : seen.index("agent ended")]
    assert during and set(during) == {"connect"}
    assert seen[seen.index("agent ended") + 1 :] == ["connect"]


def _waiting_on(path: Path, pid: int) -> bool:
    """Whether ``pid`` waits for the flock on ``path`` (a ``->`` line of /proc/locks)."""
    inode = os.stat(path).st_ino
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if "->" in fields and str(pid) in fields and any(f.endswith(f":{inode}") for f in fields):
            return True
    return False


def test_an_executor_past_the_hosts_bound_waits_for_a_connection(
    desk: Desk, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if backend == "sqlite":
        pytest.skip("a SQLite desk's executors share a file: there is no server to spare")
    import time

    attempt_id = planned(desk, monkeypatch)
    run = desk.home / "run"
    run.mkdir(mode=0o700, exist_ok=True)
    slot = run / "connection-0.lock"
    held = os.open(slot, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)  # the host's one slot, held as by a connected executor
    env = {**os.environ, **desk.env(), "DESKD_EXECUTOR_CONNECTIONS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "deskd", "agent", "run", "--attempt", str(attempt_id), "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + BOUND_S
        while not _waiting_on(slot, proc.pid):
            assert proc.poll() is None, f"it did not wait: {proc.communicate()}"
            assert time.monotonic() < deadline, "it never waited for the slot"
            time.sleep(0.05)
        with desk.db() as conn:  # waiting, it has not connected: nothing is started
            row = conn.execute("SELECT launch_status FROM attempts WHERE id = ?", (attempt_id,))
            assert row.fetchone()[0] == "planned"
    finally:
        os.close(held)  # the slot is free: it connects and runs
        _out, err = proc.communicate(timeout=BOUND_S)
    assert proc.returncode == 0, err
    with desk.db() as conn:
        row = conn.execute("SELECT launch_status FROM attempts WHERE id = ?", (attempt_id,))
        assert row.fetchone()[0] == "finished"


def test_a_negative_bound_is_refused_naming_the_variable(desk: Desk) -> None:
    out = desk.run("status", DESKD_EXECUTOR_CONNECTIONS="-1")
    assert out.exit_code != 0
    assert (
        "DESKD_EXECUTOR_CONNECTIONS" in out.stderr and "a whole number (0: no bound)" in out.stderr
    )


def test_an_executor_whose_own_slot_is_held_takes_a_free_one(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Slot ``pid % N`` held by another executor and another slot free: it connects at once
    on the free one, not after the holder (no slot idles while an executor waits)."""
    import threading

    from deskd.service.desk.context import open_context

    for name, value in desk.env().items():
        monkeypatch.setenv(name, value)
    run = desk.home / "run"
    run.mkdir(mode=0o700, exist_ok=True)
    held = os.open(run / f"connection-{os.getpid() % 2}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)
    ctx = open_context()
    ctx.slots = 2
    connected, checked = threading.Event(), threading.Event()

    def connect() -> None:  # the connection is the thread's own (SQLite's rule)
        assert ctx.conn is not None
        connected.set()
        checked.wait(BOUND_S)
        ctx.close()

    thread = threading.Thread(target=connect, daemon=True)
    thread.start()
    try:
        assert connected.wait(BOUND_S), "it waited for its own slot while the other was free"
        other = os.open(run / f"connection-{(os.getpid() + 1) % 2}.lock", os.O_RDWR)
        with pytest.raises(BlockingIOError):  # the free slot is the one it holds
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.close(other)
    finally:
        os.close(held)
        checked.set()
        thread.join(BOUND_S)
