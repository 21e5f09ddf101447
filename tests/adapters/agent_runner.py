"""A minimal executor loop for tests: run an agent argv, feed stdout lines as they arrive,
kill the process group at the timeout, and ask the adapter how it ended.

``timeout_after_lines=N`` ends the run as a timeout once the agent has printed N lines (a
hanging fake has said what it says before it hangs): an event, where a timeout in seconds
would depend on how fast the machine starts the fake."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from deskd.adapters.agents.base import AgentAdapter, RunOutcome, RunState

ROOT = Path(__file__).resolve().parents[2]
FAKES = ROOT / "tests" / "fakes"


@dataclass
class Ran:
    state: RunState
    outcome: RunOutcome
    signals: list[tuple[int, set[str]]] = field(default_factory=list)  # (line index, signals)
    exit_code: int | None = None
    stderr: str = ""


def agent_env(**extra: str) -> dict[str, str]:
    """The environment without DESKD_*/FAKE_*/CLAUDE*, with this interpreter first on PATH
    (the fakes start with ``#!/usr/bin/env python3``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DESKD_", "FAKE_", "CLAUDE"))}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update(extra)
    return env


def run_agent(
    adapter: AgentAdapter,
    argv: list[str],
    *,
    env: dict[str, str],
    timeout: float = 20.0,
    cwd: Path | None = None,
    timeout_after_lines: int | None = None,
) -> Ran:
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    state = RunState()
    ran = Ran(state=state, outcome=None)  # type: ignore[arg-type]
    err: list[str] = []
    printed = threading.Event()

    def read_out() -> None:
        assert proc.stdout is not None
        for index, line in enumerate(proc.stdout):
            got = adapter.feed(state, line)
            if got:
                ran.signals.append((index, got))
            if timeout_after_lines is not None and index + 1 >= timeout_after_lines:
                printed.set()

    def read_err() -> None:
        assert proc.stderr is not None
        err.append(proc.stderr.read())

    threads = [threading.Thread(target=read_out), threading.Thread(target=read_err)]
    for t in threads:
        t.start()
    timed_out = False
    try:
        # The outer bound is only ever reached by a fake that never prints the lines.
        waited = timeout_after_lines is not None and printed.wait(timeout=300)
        if waited and proc.poll() is None:
            raise subprocess.TimeoutExpired(argv, 0)
        ran.exit_code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        ran.exit_code = None
    for t in threads:
        t.join(timeout=10)
    ran.stderr = "".join(err)
    ran.outcome = adapter.outcome(
        state, exit_code=ran.exit_code, timed_out=timed_out, stderr_tail=ran.stderr[-4000:]
    )
    return ran
