"""Run one agent process: argv list (never a shell), stdin closed, stdout streamed line by line,
stderr kept for its tail, a hard timeout that kills the whole process group. Run probe hooks
and task checks the same way, concurrently, each with a timeout, under a tick budget: outside
any write transaction (lesson 27), so a slow network check never holds the database or eats
the tick's minute. And run git, waiting for its output as text.

An agent never outlives its executor: on Linux the child asks the kernel (``PR_SET_PDEATHSIG``)
for SIGKILL when the executor dies, however it dies; what the agent started in its own process
group is ended by the healing tick (``end_agent_group``) before it records ``executor died``.
"""

from __future__ import annotations

import ctypes
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, NamedTuple


class Finished(NamedTuple):
    exit_code: int | None
    timed_out: bool
    stderr_tail: str


def stream_process(
    argv: list[str],
    *,
    env: dict[str, str],
    cwd: Path,
    timeout_s: float,
    on_line: Callable[[str], None],
    log: IO[str],
    on_start: Callable[[int], None],
) -> Finished:
    """Start ``argv``, hand each stdout line to ``on_line`` as it arrives, and wait at most
    ``timeout_s``. Every line (stdout and stderr) is also written to ``log``."""
    proc = contained(
        argv, cwd=cwd, env=env, encoding="utf-8", preexec_fn=_die_with_parent(os.getpid())
    )
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

    readers = [threading.Thread(target=pump, daemon=True) for pump in (pump_stdout, pump_stderr)]
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
        kill_group(proc)
    try:
        exit_code: int | None = proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        kill_group(proc)
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


def contained(
    argv: list[str], *, cwd: Path, env: dict[str, str] | None, **more: Any
) -> subprocess.Popen[str]:
    """``argv`` started with stdin closed, stdout and stderr piped as text, in its own process
    group, so that a timeout kills what it started too (``kill_group``)."""
    return subprocess.Popen(
        argv,
        cwd=str(cwd),
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
        **more,
    )


def kill_group(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()


_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> Callable[[], None] | None:
    """A preexec hook (run in the child after ``setsid``) asking for SIGKILL when ``parent``
    dies. libc is loaded here, in the parent: the child only makes two system calls."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        # The running interpreter's own symbols, libc's among them: find_library("c") would
        # run `ldconfig -p` in a child process on every launch to find the same library.
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None

    def hook() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the executor died before the request took effect
            os._exit(1)

    return hook


def end_agent_group(pgid: int, token: str) -> list[int]:
    """SIGKILL every live process of group ``pgid`` that carries ``DESKD_WAKE_TOKEN=token``.

    The token check makes a recycled process-group id harmless: only the launch's own agent
    (and what it started, which inherits its environment) is ever killed. Returns the pids.
    Needs ``/proc`` (Linux); elsewhere nothing is killed.
    """
    marker = f"DESKD_WAKE_TOKEN={token}".encode()
    killed: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return killed
    for entry in entries:
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            if os.getpgid(pid) != pgid:
                continue
            with open(f"/proc/{pid}/environ", "rb") as fh:
                if marker not in fh.read().split(b"\0"):
                    continue
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except (OSError, ValueError):
            continue
    return killed


class ProbeResult(NamedTuple):
    value: Any = None
    error: str | None = None


def run_probes(
    targets: dict[int, str],
    *,
    cwd: Path,
    timeout_s: float,
    budget_s: float,
    own_timeouts: dict[int, float] | None = None,
) -> dict[int, ProbeResult]:
    """Start every probe at once; collect each within its timeout (its own from
    ``own_timeouts``, else ``timeout_s``) and all within the budget."""
    children = {
        i: Child(
            [sys.executable, "-m", "deskd.adapters.probe_child", target],
            cwd,
            (own_timeouts or {}).get(i, timeout_s),
        )
        for i, target in targets.items()
    }
    return {
        i: ProbeResult(error=r.error) if r.error else probe_result(r.exit_code or 0, r.out, r.err)
        for i, r in run_children(children, budget_s=budget_s).items()
    }


class Child(NamedTuple):
    """One contained child: its argv (never a shell), where it runs, its own timeout."""

    argv: list[str]
    cwd: Path
    timeout_s: float
    env: dict[str, str] | None = None


class Ran(NamedTuple):
    """What a child did: its exit code and output, or why it did not finish (``error``)."""

    exit_code: int | None = None
    out: str = ""
    err: str = ""
    error: str | None = None


def run_children(children: dict[int, Child], *, budget_s: float) -> dict[int, Ran]:
    """Start every child at once, stdin closed, each in its own process group; collect each
    within its timeout and all within ``budget_s``. A child past either is killed, group and
    all, and reported with ``error`` set."""
    started = time.monotonic()
    procs: dict[int, tuple[subprocess.Popen[str], float, float]] = {}
    results: dict[int, Ran] = {}
    for key, child in children.items():
        try:
            proc = contained(child.argv, cwd=child.cwd, env=child.env)
        except OSError as exc:
            results[key] = Ran(error=f"could not start: {exc}")
            continue
        procs[key] = (proc, started + child.timeout_s, child.timeout_s)
    budget_end = started + budget_s

    def collect(proc: subprocess.Popen[str], deadline: float, own: float) -> Ran:
        remaining = max(0.0, min(deadline, budget_end) - time.monotonic())
        try:
            out, err = proc.communicate(timeout=remaining)
        except subprocess.TimeoutExpired:
            kill_group(proc)  # what it started goes with it
            proc.communicate()
            if deadline > budget_end:
                return Ran(error="the tick's probe budget ran out")
            return Ran(error=f"timed out after {own:g}s")
        return Ran(exit_code=proc.returncode, out=out, err=err)

    from concurrent.futures import ThreadPoolExecutor  # not loaded by an agent's launch

    # One waiter thread per child, so each gets its own full timeout.
    with ThreadPoolExecutor(max_workers=max(1, len(procs))) as pool:
        futures = {k: pool.submit(collect, p, d, own) for k, (p, d, own) in procs.items()}
        for key, future in futures.items():
            results[key] = future.result()
    return results


def probe_result(code: int, out: str, err: str) -> ProbeResult:
    if code != 0:
        tail = (err.strip().splitlines() or ["exit " + str(code)])[-1]
        return ProbeResult(error=tail[:300])
    try:
        return ProbeResult(value=json.loads(out.strip().splitlines()[-1])["value"])
    except (ValueError, IndexError, KeyError):
        return ProbeResult(error="probe printed no result")


GIT_TIMEOUT_S = 120


class GitFailed(Exception):
    """git exited non-zero, could not start, or did not finish: its last stderr line."""


def git(cwd: Path, *args: str, check: bool = True) -> str:
    """``git -C cwd args…``'s stdout; raises GitFailed (when ``check``) on a non-zero exit."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(cwd), *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=GIT_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitFailed(f"git {args[0]}: {exc}") from None
    if check and proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        raise GitFailed(f"git {args[0]}: {tail}")
    return proc.stdout if proc.returncode == 0 else ""
