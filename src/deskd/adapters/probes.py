"""Run probe hooks (and task checks) in child processes, concurrently, each with a timeout,
under a tick budget.

Probes run outside any write transaction (lesson 27): a slow network check must never hold
the database or eat the tick's minute.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

from deskd.adapters.process import contained, kill_group


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
