"""Operator verbs on a real launch: `deskd agent stop` ends the agent's process group and
records it, `deskd logs` prints (and follows) its transcript, `deskd wait` returns 0 when
the role reaches a state and 1 on timeout."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import Desk, urgent

FAKES = Path(__file__).resolve().parents[1] / "fakes"


@pytest.fixture
def fake(desk: Desk, tmp_path: Path) -> None:
    desk.setenv("DESKD_AGENT_CMD", str(FAKES / "fake-claude"))
    desk.monkeypatch.setenv("FAKE_ARGV_FILE", str(tmp_path / "argv.jsonl"))


def until(predicate: object, *, within_s: float = 120.0) -> None:
    """Poll a real process's progress (not the clock: DESKD_NOW stays pinned). It returns
    when the process gets there; the bound is for a real hang, not a loaded machine."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting for the executor")


def gone(pid: int) -> bool:
    """The process has exited (reaped here when it is this test's child, like the executor
    the in-process tick started)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == pid
    except ChildProcessError:  # not our child: it is gone once it no longer exists
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False


def test_agent_stop_ends_the_running_launch_and_records_it(desk: Desk, fake: None) -> None:
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "hang")
    urgent(desk)
    launched = desk.json("tick", "--execute")["launched"][0]
    attempt_id, executor = launched["attempt_id"], launched["pid"]
    pid_file = desk.home / "run" / "agents" / f"{attempt_id}.pid"
    # The executor creates the file, then writes the pid: wait for the pid, not the file.
    until(lambda: pid_file.exists() and pid_file.read_text().strip())
    agent_pid = int(pid_file.read_text())
    # A follower started while the agent runs keeps printing until the process ends.
    follower = subprocess.Popen(
        [str(Path(sys.executable).parent / "deskd"), "logs", "--role", "alpha", "--follow"],
        env={**os.environ, **desk.env()},
        stdout=subprocess.PIPE,
        text=True,
    )
    out = desk.json("agent", "stop", "--role", "alpha")
    assert out == {
        "role": "alpha",
        "attempt_id": attempt_id,
        "pid": agent_pid,
        "result": "terminated",
    }
    until(lambda: gone(executor))
    assert gone(agent_pid) and not pid_file.exists()
    followed, _ = follower.communicate(timeout=120)  # returned on its own: the process ended
    assert follower.returncode == 0
    assert followed.startswith(f"# deskd launch attempt {attempt_id} role alpha")
    with desk.db() as conn:
        row = conn.execute("SELECT * FROM attempts WHERE id = ?", (attempt_id,)).fetchone()
        events = [r[0] for r in conn.execute("SELECT kind FROM events ORDER BY id")]
    # the executor's own finish came later and did not overwrite the stop
    assert (row["launch_status"], row["failure_class"]) == ("failed", "stopped")
    assert row["launch_detail"] == "stopped by operator" and "launch.stopped" in events
    again = desk.run("agent", "stop", "--role", "alpha")
    assert again.exit_code == 1 and "alpha has no running launch" in again.stderr
    assert desk.run("agent", "stop", "--role", "alpha", role="alpha").exit_code == 1
    transcript = desk.ok("logs", "--role", "alpha").stdout
    assert transcript.startswith(f"# deskd launch attempt {attempt_id} role alpha mode spawn")
    assert desk.ok("logs", "--role", "alpha", "--follow").stdout == transcript  # ended: returns
    assert desk.ok("wait", "--role", "alpha", "--until", "idle", "--timeout", "5s").exit_code == 0


def test_logs_names_the_attempts_it_has(desk: Desk, fake: None) -> None:
    out = desk.run("logs", "--role", "beta")
    assert out.exit_code == 1 and "beta has no agent transcripts yet" in out.stderr
    urgent(desk, role="beta")
    attempt_id = desk.json("tick", "--execute", "--wait")["launched"][0]["attempt_id"]
    assert (
        '"type": "result"' in desk.ok("logs", "--role", "beta", "--attempt", str(attempt_id)).stdout
    )
    out = desk.run("logs", "--role", "beta", "--attempt", "999")
    assert out.exit_code == 1
    assert f"beta has transcripts for attempts: {attempt_id}" in out.stderr


def test_wait_returns_when_the_state_is_reached_and_fails_on_timeout(
    desk: Desk, fake: None
) -> None:
    out = desk.run("wait", "--role", "alpha", "--until", "landed", "--timeout", "1s")
    assert out.exit_code == 1
    # One line when the wait starts says what it waits for (stderr: stdout stays the result).
    assert out.stderr == (
        "deskd: waiting up to 1s for alpha to be landed\n"
        "deskd: alpha did not reach landed within 1s (now: no launch yet)\n"
    )
    urgent(desk)
    ticked = desk.run("tick", "--execute", "--wait", "--json")
    (launch,) = ticked.json()["launched"]
    assert ticked.stderr == (
        "deskd: waiting for the launches this tick started to end: "
        f"alpha (attempt {launch['attempt_id']})\n"
    )
    got = desk.run("wait", "--role", "alpha", "--until", "landed", "--timeout", "5s", "--json")
    assert got.json()["reached"] is True and got.json()["until"] == "landed"
    assert got.stderr == ""  # reached at once: nothing to wait for, nothing said
    assert desk.ok("wait", "--role", "alpha", "--until", "resting").exit_code == 0
    bad = desk.run("wait", "--role", "alpha", "--until", "asleep")
    assert bad.exit_code == 1 and "choose one of: resting, landed, idle" in bad.stderr
