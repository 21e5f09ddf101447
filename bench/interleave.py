"""Interleaved fresh-process timing shared by the benches.

Every form (an argv and its environment) runs once per round; the order rotates each round
so no form always runs first, after one uncounted warm-up round. Sequential batches of one
form drift with the machine's load (a shared 2-core box swings by ±30% within a minute);
interleaving exposes every form to the same load, which is what makes ratios between them
reproducible. Figures are the median with min–max, and the ratio of medians to a baseline
form (``python -c pass``, the interpreter alone).

Each run records wall time and the child's CPU time (user + system, from ``wait4``). On a
busy machine wall time also counts waiting for a core; CPU time does not, so its ratios
hold steady when the wall-time ones swing. Both are reported.
"""

from __future__ import annotations

import itertools
import os
import statistics
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Form:
    name: str
    argv: Sequence[str]
    env: Mapping[str, str]
    stdin: bytes = b""


@dataclass(frozen=True)
class Sample:
    wall_ms: float
    cpu_ms: float
    maxrss_kib: int


_serial = itertools.count()


def run_once(form: Form) -> Sample:
    """One fresh process; a failing command stops the bench loudly.

    ``{n}`` in an argument or in stdin becomes a fresh number each run (for commands that
    refuse an exact repeat, such as a duplicate meeting message, or a hook payload that must
    open a new session every time).
    """
    n = str(next(_serial))
    argv = [a.replace("{n}", n) for a in form.argv]
    stdin = form.stdin.replace(b"{n}", n.encode())
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        env=dict(form.env),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stderr is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read()
    proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"{form.name}: exit {proc.returncode}\n{err.decode(errors='replace')}")
    return Sample(wall, (usage.ru_utime + usage.ru_stime) * 1000, usage.ru_maxrss)


def interleave(forms: Sequence[Form], runs: int) -> dict[str, list[Sample]]:
    """``runs`` timed rounds (after one warm-up round), order rotated every round."""
    for form in forms:
        run_once(form)
    samples: dict[str, list[Sample]] = {f.name: [] for f in forms}
    for round_ in range(runs):
        shift = round_ % len(forms)
        for form in [*forms[shift:], *forms[:shift]]:
            samples[form.name].append(run_once(form))
    return samples


def summary(values: Sequence[float]) -> dict[str, float]:
    return {
        "median_ms": round(statistics.median(values), 2),
        "min_ms": round(min(values), 2),
        "max_ms": round(max(values), 2),
    }


def report(
    samples: Mapping[str, Sequence[Sample]], baseline: str
) -> dict[str, dict[str, dict[str, float]]]:
    """Per form, wall and CPU: median, min–max and the ratio of medians to ``baseline``."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for kind in ("wall", "cpu"):
        base = statistics.median(getattr(s, f"{kind}_ms") for s in samples[baseline])
        for name, runs in samples.items():
            fig = summary([getattr(s, f"{kind}_ms") for s in runs])
            fig["ratio"] = round(fig["median_ms"] / base, 2)
            out.setdefault(name, {})[kind] = fig
    return out


def print_table(figures: Mapping[str, Mapping[str, Mapping[str, float]]], baseline: str) -> None:
    width = max(len(n) for n in figures)
    print(f"{'':<{width}}  {'wall ms: median (min-max)':<28} ×{baseline:<8} cpu ms   ×{baseline}")
    for name, fig in figures.items():
        wall, cpu = fig["wall"], fig["cpu"]
        span = f"{wall['median_ms']:.1f} ({wall['min_ms']:.1f}-{wall['max_ms']:.1f})"
        print(
            f"{name:<{width}}  {span:<28} {wall['ratio']:6.2f}   "
            f"{cpu['median_ms']:6.1f} {cpu['ratio']:6.2f}"
        )
