"""CLI latency and enqueue throughput (figures go to docs/performance.md).

1. Whole-process wall time of the agent-facing commands, ``deskd status`` and a dry tick,
   as fresh processes interleaved with ``python -c pass`` (the floor) and ``deskd --version``
   (bench/interleave.py): median, min–max and the ratio to the floor. Goals: agent-facing
   commands ≤ 6×, ``status`` and ``tick --dry-run`` ≤ 8×.
2. In-process throughput of ``deskd.service.desk.inbox.enqueue``, one call (one transaction) at
   a time through one DeskContext with ``ctx.now`` advanced per call, on a desk whose
   database already holds 100k items of history. Target: >= 2,000 items/s.
3. What the imports of a hot command cost (``python -X importtime``).

Run:  .venv/bin/python bench/cli_latency.py [--runs 20] [--items 3000] [--history 100000]
      [--cold-only] [--json] [--against SRC]

``--against SRC`` also runs every command from another source tree (SRC/src first on
``PYTHONPATH``; e.g. ``git archive main src | tar -x -C /tmp/base``), in the same rounds: a
before/after comparison under the same load, each on its own desk.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interleave import Form, interleave, print_table, report

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
    # PYTHONDONTWRITEBYTECODE would make every run recompile deskd from source; an
    # installed package has its bytecode, so the bench measures that case.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("DESKD_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    env["DESKD_HOME"] = str(home)
    return env


def make_desk(root: Path, name: str) -> Path:
    home = root / name
    home.mkdir()
    (home / "deskd.toml").write_text(DESK, encoding="utf-8")
    return home


def _deskd_json(deskd: list[str], env: dict[str, str], *args: str) -> Any:
    proc = subprocess.run([*deskd, *args, "--json"], env=env, capture_output=True, check=True)
    return json.loads(proc.stdout)


def hot_forms(home: Path, *, src: str | None = None) -> list[Form]:
    """The commands an agent runs many times a turn, and the board and a dry tick; with
    ``src``, run from that source tree instead (named ``… (SRC's basename)``)."""
    deskd = deskd_argv()
    env = clean_env(home)
    if src is not None:
        env["PYTHONPATH"] = str(Path(src) / "src")
    task = _deskd_json(deskd, env, "task", "add", "bench task", "--for", "alpha", "--by", "beta")
    meeting = _deskd_json(
        deskd,
        env,
        "meeting",
        "call",
        "--by",
        "alpha",
        "--agenda",
        "bench",
        "--attendees",
        "beta,gamma",
    )
    task_id, meeting_id = str(task["id"]), str(meeting["meeting_id"])
    commands: dict[str, list[str]] = {
        "deskd --version": ["--version"],
        "inbox enqueue": [
            "inbox",
            "enqueue",
            "--for",
            "alpha",
            "--source",
            "alert",
            "--title",
            "x",
        ],
        "inbox list": ["inbox", "list", "--for", "alpha", "--json"],
        "inbox ack --seen": ["inbox", "ack", "--for", "alpha", "--seen"],
        "status set": ["status", "set", "--role", "beta", "--state", "working", "--activity", "b"],
        "heartbeat": [
            "heartbeat",
            "--role",
            "beta",
            "--session-id",
            "00000000-0000-4000-8000-00000000be0c",
        ],
        "send": ["send", "--from", "beta", "--to", "gamma", "--subject", "s", "--body", "b"],
        "task update": ["task", "update", task_id, "--note", "progress", "--by", "alpha"],
        "meeting send": ["meeting", "send", meeting_id, "--role", "alpha", "--body", "point {n}"],
        "meeting updates": ["meeting", "updates", meeting_id, "--role", "beta"],
        "hook add": ["hook", "add", "--for", "gamma", "--title", "t", "--every", "1h"],
        "status --json": ["status", "--json"],
        "tick --dry-run": ["tick", "--dry-run"],
    }
    if src is not None:
        tag = f" ({Path(src).name})"
        return [Form(name + tag, [*deskd, *args], env) for name, args in commands.items()]
    forms = [Form("python -c pass", [sys.executable, "-c", "pass"], env)]
    forms += [Form(name, [*deskd, *args], env) for name, args in commands.items()]
    return forms


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
    from deskd.config.settings_model import validate_settings
    from deskd.service.desk.context import open_context
    from deskd.service.desk.inbox import NewItem, enqueue

    settings = validate_settings(clean_env(home))
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

    ``deskd.config.desk_file`` pulls in ``deskd.config``, pydantic and pydantic-settings. pydantic loads
    lazily, so its modules show up under whichever deskd module touched them first; the
    split is therefore by owner: deskd's own module bodies (which include building the
    pydantic models) versus every third-party module imported on the way.
    """
    samples: dict[str, list[float]] = {
        "deskd.config.desk_file (total)": [],
        "third-party (pydantic, pydantic-settings, deps)": [],
        "deskd module bodies (incl. model building)": [],
        "click": [],
    }
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import click, deskd.config.desk_file"],
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
            if name == "deskd.config.desk_file":
                total = int(cumulative)
            if name == "deskd" or name.startswith("deskd."):
                own += int(self_us)
        third = total - own
        samples["deskd.config.desk_file (total)"].append(total / 1000)
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
    parser.add_argument("--cold-only", action="store_true", help="whole-process figures only")
    parser.add_argument("--against", metavar="SRC", help="also run the commands from SRC/src")
    args = parser.parse_args()

    results: dict[str, Any] = {"python": sys.version.split()[0], "runs": args.runs}
    with tempfile.TemporaryDirectory(prefix="deskd-bench-") as tmp:
        root = Path(tmp)
        forms = hot_forms(make_desk(root, "cli"))
        if args.against:
            forms += hot_forms(make_desk(root, "against"), src=args.against)
        results["cold"] = report(interleave(forms, args.runs), "python -c pass")
        if args.cold_only:
            return _print(results, args)
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

    _print(results, args)


def _print(results: dict[str, Any], args: argparse.Namespace) -> None:
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"python {results['python']}, {args.runs} interleaved rounds of fresh processes")
    print_table(results["cold"], "python -c pass")
    if "import_ms" not in results:
        return
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
