"""CLI latency and enqueue throughput (ISSUE 2 "Measure"; figures go to docs/performance.md).

1. Cold wall time, median of N subprocess runs: a bare interpreter (the floor),
   ``deskd --version`` and ``deskd inbox enqueue …`` on a temporary desk.
2. In-process throughput of ``deskd.service.desk.inbox.enqueue``, one call (one transaction) at
   a time through one DeskContext with ``ctx.now`` advanced per call, on a desk whose
   database already holds 100k items of history. Target: >= 2,000 items/s.
3. What pydantic and pydantic-settings cost the CLI at import (``python -X importtime``).

Run:  .venv/bin/python bench/cli_latency.py [--runs 20] [--items 3000] [--history 100000] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DESK = """\
[desk]
name = "bench"
timezone = "America/New_York"
inbox_sources = ["alert"]

[[roles]]
name = "alpha"

[[roles]]
name = "beta"

[[roles]]
name = "gamma"
"""

ROLES = ("alpha", "beta", "gamma")
T0 = 1_780_000_000_000  # 2026-05-28, Unix ms: history ends here, the bench starts after


def deskd_argv() -> list[str]:
    """The ``deskd`` console script of this interpreter's environment, else ``-m deskd``."""
    script = Path(sys.executable).parent / "deskd"
    return [str(script)] if script.exists() else [sys.executable, "-m", "deskd"]


def clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env["DESKD_HOME"] = str(home)
    return env


def make_desk(root: Path, name: str) -> Path:
    home = root / name
    home.mkdir()
    (home / "deskd.toml").write_text(DESK, encoding="utf-8")
    return home


def cold_ms(argv: list[str], env: dict[str, str], runs: int) -> dict[str, float]:
    """Median (and min/max) wall time of ``runs`` fresh processes, after one warm-up run."""
    subprocess.run(argv, env=env, capture_output=True, check=True)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, check=True)
        times.append((time.perf_counter() - start) * 1000)
    return {
        "median_ms": round(statistics.median(times), 1),
        "min_ms": round(min(times), 1),
        "max_ms": round(max(times), 1),
    }


def seed_history(db: Path, count: int) -> None:
    """``count`` items over 30 days for three roles: 98% read, 2% unread, some dedup keys."""
    from deskd.store.db import connect, transaction

    rng = random.Random(7)
    conn = connect(db)
    span = 30 * 86_400_000
    rows = []
    for i in range(count):
        at = T0 - span + (span * i) // count
        unread = rng.random() < 0.02
        rows.append(
            (
                ROLES[i % 3],
                "alert",
                rng.randrange(4),
                f"history item {i}",
                "body " * rng.randrange(1, 40),
                f"key-{i % 500}" if (i % 7 == 0 and not unread) else None,
                at,
                at + 1_800_000,
                None if unread else at + 60_000,
                None if unread else at + 60_000,
                None if unread else at + 120_000,
            )
        )
    with transaction(conn):
        conn.executemany(
            "INSERT INTO roles (name, title, enabled, in_desk, created_at, updated_at) "
            "VALUES (?, '', 1, 1, ?, ?) ON CONFLICT DO NOTHING",
            [(r, T0 - span, T0 - span) for r in ROLES],
        )
        conn.executemany(
            "INSERT INTO items (role, source, priority, title, body, dedup_key, enqueued_at, "
            "sla_due_at, notified_at, seen_at, read_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    conn.execute("ANALYZE")
    conn.close()


def throughput(home: Path, items: int, *, dedup: bool) -> dict[str, float]:
    """Items per second through ``service.inbox.enqueue``, one call and one commit each."""
    from deskd.config import load_settings
    from deskd.service.desk.context import open_context
    from deskd.service.desk.inbox import NewItem, enqueue

    settings = load_settings(clean_env(home))
    ctx = open_context(settings=settings)
    ctx.now = T0 + 3_600_000
    enqueue(ctx, NewItem(role="alpha", source="alert", title="warm-up"))
    start = time.perf_counter()
    for i in range(items):
        ctx.now += 1
        enqueue(
            ctx,
            NewItem(
                role=ROLES[i % 3],
                source="alert",
                title=f"bench item {i}",
                priority="urgent" if i % 50 == 0 else "normal",
                dedup_key=f"alert-{i % 20}" if dedup else None,
            ),
        )
    elapsed = time.perf_counter() - start
    ctx.close()
    return {"items": items, "seconds": round(elapsed, 3), "items_per_s": round(items / elapsed)}


def import_cost(runs: int) -> dict[str, float]:
    """What importing the settings and desk-file layer costs (ms, median of ``runs``).

    ``deskd.desk`` pulls in ``deskd.config``, pydantic and pydantic-settings. pydantic loads
    lazily, so its modules show up under whichever deskd module touched them first; the
    split is therefore by owner: deskd's own module bodies (which include building the
    pydantic models) versus every third-party module imported on the way.
    """
    samples: dict[str, list[float]] = {
        "deskd.desk (total)": [],
        "third-party (pydantic, pydantic-settings, deps)": [],
        "deskd module bodies (incl. model building)": [],
        "click": [],
    }
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import click, deskd.desk"],
            capture_output=True,
            text=True,
            check=True,
        )
        own = third = 0
        total = click_ms = 0
        for line in proc.stderr.splitlines():
            if not line.startswith("import time:") or "|" not in line:
                continue
            self_us, cumulative, name = (part.strip() for part in line[12:].split("|"))
            if not self_us.isdigit():
                continue
            if name == "click" and not click_ms:
                click_ms = int(cumulative)
                continue
            if name == "deskd.desk":
                total = int(cumulative)
            if name == "deskd" or name.startswith("deskd."):
                own += int(self_us)
        third = total - own
        samples["deskd.desk (total)"].append(total / 1000)
        samples["third-party (pydantic, pydantic-settings, deps)"].append(third / 1000)
        samples["deskd module bodies (incl. model building)"].append(own / 1000)
        samples["click"].append(click_ms / 1000)
    return {m: round(statistics.median(v), 1) for m, v in samples.items() if v}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="subprocess runs per figure")
    parser.add_argument("--items", type=int, default=3000, help="enqueues per throughput run")
    parser.add_argument("--history", type=int, default=100_000, help="items seeded first")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args()

    results: dict[str, Any] = {"python": sys.version.split()[0], "runs": args.runs}
    with tempfile.TemporaryDirectory(prefix="deskd-bench-") as tmp:
        root = Path(tmp)
        cli_home = make_desk(root, "cli")
        env = clean_env(cli_home)
        deskd = deskd_argv()
        results["cold"] = {
            "python -c pass": cold_ms([sys.executable, "-c", "pass"], env, args.runs),
            "deskd --version": cold_ms([*deskd, "--version"], env, args.runs),
            "deskd inbox enqueue": cold_ms(
                [*deskd, "inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x"],
                env,
                args.runs,
            ),
        }
        results["import_ms"] = import_cost(args.runs)

        home = make_desk(root, "history")
        start = time.perf_counter()
        seed_history(home / "data" / "deskd.db", args.history)
        results["history"] = {
            "items": args.history,
            "seed_s": round(time.perf_counter() - start, 2),
        }
        results["throughput"] = {
            "plain": throughput(home, args.items, dedup=False),
            "dedup_key": throughput(home, args.items, dedup=True),
        }
        db = home / "data" / "deskd.db"
        with sqlite3.connect(db) as conn:
            results["history"]["total_items"] = conn.execute(
                "SELECT COUNT(*) FROM items"
            ).fetchone()[0]

    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"python {results['python']}, {args.runs} runs per cold figure (median, min-max)")
    for name, fig in results["cold"].items():
        print(f"  {name:<22} {fig['median_ms']:7.1f} ms  ({fig['min_ms']:.1f}-{fig['max_ms']:.1f})")
    print("import (python -X importtime, median):")
    for name, ms in results["import_ms"].items():
        print(f"  {name:<48} {ms:7.1f} ms")
    hist = results["history"]
    print(f"history: {hist['items']} items seeded in {hist['seed_s']} s")
    for name, fig in results["throughput"].items():
        print(
            f"  enqueue ({name:<9}) {fig['items_per_s']:7d} items/s "
            f"({fig['items']} in {fig['seconds']} s)"
        )


if __name__ == "__main__":
    main()
