"""Interleaved fresh-process timing shared by the benches.

Every form (an argv and its environment) runs once per round; the order rotates each round
so no form always runs first, after one uncounted warm-up round. Sequential batches of one
form drift with the machine's load (a shared 2-core box swings by ±30% within a minute);
interleaving exposes every form to the same load, which is what makes ratios between them
reproducible. Figures are the median with min–max, and the ratio of medians to a baseline
form (``python -c pass``, the interpreter alone).
"""

from __future__ import annotations

import itertools
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


_serial = itertools.count()


def run_once(form: Form) -> float:
    """Wall time of one fresh process in ms; a failing command stops the bench loudly.

    ``{n}`` in an argument becomes a fresh number each run (for commands that refuse an
    exact repeat, such as a duplicate meeting message).
    """
    n = str(next(_serial))
    argv = [a.replace("{n}", n) for a in form.argv]
    start = time.perf_counter()
    proc = subprocess.run(
        argv, env=dict(form.env), input=form.stdin, capture_output=True, check=False
    )
    elapsed = (time.perf_counter() - start) * 1000
    if proc.returncode != 0:
        raise SystemExit(
            f"{form.name}: exit {proc.returncode}\n{proc.stderr.decode(errors='replace')}"
        )
    return elapsed


def interleave(forms: Sequence[Form], runs: int) -> dict[str, list[float]]:
    """``runs`` timed rounds (after one warm-up round), order rotated every round."""
    for form in forms:
        run_once(form)
    times: dict[str, list[float]] = {f.name: [] for f in forms}
    for round_ in range(runs):
        shift = round_ % len(forms)
        for form in [*forms[shift:], *forms[:shift]]:
            times[form.name].append(run_once(form))
    return times


def summary(samples: Sequence[float]) -> dict[str, float]:
    return {
        "median_ms": round(statistics.median(samples), 2),
        "min_ms": round(min(samples), 2),
        "max_ms": round(max(samples), 2),
    }


def report(times: Mapping[str, Sequence[float]], baseline: str) -> dict[str, dict[str, float]]:
    """Median, min–max and the ratio of medians to ``baseline`` for every form."""
    base = statistics.median(times[baseline])
    out = {}
    for name, samples in times.items():
        fig = summary(samples)
        fig["ratio"] = round(fig["median_ms"] / base, 2)
        out[name] = fig
    return out


def print_table(figures: Mapping[str, Mapping[str, float]], baseline: str) -> None:
    width = max(len(n) for n in figures)
    print(f"{'form':<{width}}  median ms  (min-max)        × {baseline}")
    for name, fig in figures.items():
        span = f"({fig['min_ms']:.1f}-{fig['max_ms']:.1f})"
        print(f"{name:<{width}}  {fig['median_ms']:9.1f}  {span:<15}  {fig['ratio']:5.2f}")
