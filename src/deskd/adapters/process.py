"""Run one agent process: argv list (never a shell), stdin closed, stdout streamed line by line,
stderr kept for its tail, a hard timeout that kills the whole process group."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO


@dataclass(frozen=True, slots=True)
class Finished:
    exit_code: int | None
    timed_out: bool
    stderr_tail: str


def _dies_with_parent() -> Callable[[], None] | None:
    """On Linux, a child hook that has the kernel SIGKILL the agent when its executor dies.

    A running launch is one executor and one agent; when the executor is killed (``kill
    -9``, OOM, its host's tick healing it as died) the launch is relaunched, and an agent
    left running would be a second session of the role. Elsewhere: None (no such call).
    """
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before fork, not in the child
    parent = os.getpid()

    def arm() -> None:
        prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the executor died before the call: die now
            os._exit(1)

    return arm


def stream_process(
    argv: list[str],
    *,
    env: dict[str, str],
    cwd: Path,
    timeout_s: float,
    on_line: Callable[[str], None],
    log: IO[str],
    on_start: Callable[[int], None] | None = None,
) -> Finished:
    """Start ``argv``, hand each stdout line to ``on_line`` as it arrives, and wait at most
    ``timeout_s``. Every line (stdout and stderr) is also written to ``log``."""
    proc = subprocess.Popen(
        argv,
        env=env,
        cwd=str(cwd),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
        start_new_session=True,  # its own process group, so a timeout kills its children too
        preexec_fn=_dies_with_parent(),
    )
    if on_start is not None:
        on_start(proc.pid)
    lines: queue.Queue[str | None] = queue.Queue()
    stderr_lines: list[str] = []

    def pump_stdout() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    def pump_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            stderr_lines.append(line)
            del stderr_lines[:-50]

    readers = [
        threading.Thread(target=pump_stdout, daemon=True),
        threading.Thread(target=pump_stderr, daemon=True),
    ]
    for t in readers:
        t.start()
    deadline = time.monotonic() + timeout_s
    timed_out = False
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            break
        try:
            line = lines.get(timeout=min(remaining, 0.5))
        except queue.Empty:
            continue
        if line is None:
            break
        log.write(line if line.endswith("\n") else line + "\n")
        log.flush()
        on_line(line.rstrip("\n"))
    if timed_out:
        _kill_group(proc)
    try:
        exit_code: int | None = proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        exit_code = proc.wait()
    for t in readers:
        t.join(timeout=2)
    tail = "".join(stderr_lines[-20:])
    if tail:
        log.write("--- stderr ---\n" + tail)
        log.flush()
    return Finished(
        exit_code=None if timed_out else exit_code, timed_out=timed_out, stderr_tail=tail
    )


def _kill_group(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
