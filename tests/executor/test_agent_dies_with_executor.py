"""An agent never outlives its executor: kill -9 the executor, and neither the agent nor what
it started is left running once the next tick has healed the launch."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from conftest import Desk, processes_with, urgent

DESK = """\
[desk]
name = "kill"
timezone = "UTC"
inbox_sources = ["alert"]

[agent]
kind = "command"
command = "/bin/sh"
# The agent starts a grandchild in its process group, then waits: both must die. The
# healing tick relaunches the wake within its rung: that run answers at once.
args = ["-c", "[ -e {flag} ] && exit 0; touch {flag}; sleep 300 & wait"]

[[roles]]
name = "alpha"
"""


def wait_until(check: object, timeout_s: float = 120.0) -> None:
    """Returns when ``check`` holds; the bound is for a real hang, not a loaded machine."""
    deadline = time.monotonic() + timeout_s
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def test_killing_the_executor_leaves_no_agent_process(desk: Desk, tmp_path: Path) -> None:
    desk.write_desk(DESK.format(flag=tmp_path / "ran"))
    urgent(desk)
    launched = desk.json("tick", "--execute")["launched"][0]
    executor, attempt_id = int(launched["pid"]), int(launched["attempt_id"])

    pid_file = desk.home / "run" / "agents" / f"{attempt_id}.pid"

    def group() -> int | None:
        try:
            return int(pid_file.read_text().strip())
        except (OSError, ValueError):
            return None

    wait_until(lambda: group() is not None)
    with desk.db() as conn:
        token = conn.execute("SELECT wake_token FROM attempts WHERE id = ?", (attempt_id,))
        marker = f"DESKD_WAKE_TOKEN={token.fetchone()[0]}".encode()
    wait_until(lambda: len(processes_with(marker)) == 2)  # sh and its sleep
    agent = group()
    assert agent is not None

    os.kill(executor, signal.SIGKILL)
    os.waitpid(executor, 0)  # the in-process tick started it: reap it here
    # The kernel kills the agent itself (PR_SET_PDEATHSIG) at once …
    wait_until(lambda: not _alive(agent))
    # … and the healing tick ends what it started before recording the death.
    desk.advance(minutes=1)
    healed = desk.json("tick", "--execute", "--wait")
    assert healed["died"] == [attempt_id]
    assert processes_with(marker) == []
    with desk.db() as conn:
        row = conn.execute(
            "SELECT launch_status, launch_detail, launch_runs FROM attempts WHERE id = ?",
            (attempt_id,),
        )
        assert tuple(row.fetchone()) == ("failed", "executor died", 1)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def test_asking_for_the_death_signal_starts_no_helper_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """libc comes from the executor's own symbols: looking it up by name (ctypes.util's
    find_library) ran `ldconfig -p` as a child process on every launch."""
    import subprocess

    from deskd.adapters.process import _die_with_parent

    def no_process(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a helper process was started: {args}")

    monkeypatch.setattr(subprocess, "Popen", no_process)
    assert _die_with_parent(os.getpid()) is not None
