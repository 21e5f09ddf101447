"""Run probe hooks in child processes, concurrently, each with a timeout, under a tick budget.

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
    started = time.monotonic()
    procs: dict[int, tuple[subprocess.Popen[str], float, float]] = {}
    results: dict[int, ProbeResult] = {}
    for hook_id, target in targets.items():
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "deskd.adapters.probe_child", target],
                cwd=str(cwd),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
        except OSError as exc:
            results[hook_id] = ProbeResult(error=f"could not start: {exc}")
            continue
        own = (own_timeouts or {}).get(hook_id, timeout_s)
        procs[hook_id] = (proc, started + own, own)
    budget_end = started + budget_s

    def collect(proc: subprocess.Popen[str], deadline: float, own: float) -> ProbeResult:
        remaining = max(0.0, min(deadline, budget_end) - time.monotonic())
        try:
            out, err = proc.communicate(timeout=remaining)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            if deadline > budget_end:
                return ProbeResult(error="the tick's probe budget ran out")
            return ProbeResult(error=f"timed out after {own:g}s")
        return _result(proc.returncode, out, err)

    # One waiter thread per child, so each probe gets its own full timeout.
    with ThreadPoolExecutor(max_workers=max(1, len(procs))) as pool:
        futures = {i: pool.submit(collect, p, d, own) for i, (p, d, own) in procs.items()}
        for hook_id, future in futures.items():
            results[hook_id] = future.result()
    return results


def _result(code: int, out: str, err: str) -> ProbeResult:
    if code != 0:
        tail = (err.strip().splitlines() or ["exit " + str(code)])[-1]
        return ProbeResult(error=tail[:300])
    try:
        return ProbeResult(value=json.loads(out.strip().splitlines()[-1])["value"])
    except (ValueError, IndexError, KeyError):
        return ProbeResult(error="probe printed no result")
