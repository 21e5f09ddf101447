"""Tick cost against desk size and history: it should follow live rows, not history.

For 5, 20 and 50 roles and 1k, 10k, 100k historical items and attempts (created with deskd's
own store functions), measures the median wall time of a dry-run and an execute tick
in-process (``run_tick`` with a fresh context and connection each time) and as a cold
process (``deskd tick``). Targets: in-process ≤ 50 ms at 50 roles / 100k history; the
100k/1k ratio ≤ 1.3.

    .venv/bin/python bench/tick_scaling.py [--runs 15] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from deskd.service.desk.context import open_context
from deskd.service.engine.tick import run_tick
from deskd.store import attempts as attempt_rows
from deskd.store import items as item_rows
from deskd.store.db import transaction

NOW_MS = 1_796_140_800_000  # 2026-12-01T14:00:00Z
NOW = "2026-12-01T14:00:00Z"


def make_desk(root: Path, roles: int, history: int) -> Path:
    home = root / f"desk-{roles}-{history}"
    home.mkdir()
    names = [f"r{i:02d}" for i in range(roles)]
    toml = ['[desk]\ntimezone = "America/New_York"\ninbox_sources = ["alert"]\n']
    toml += [f'[[roles]]\nname = "{n}"\n' for n in names]
    (home / "deskd.toml").write_text("\n".join(toml))
    env = {"DESKD_HOME": str(home), "DESKD_NOW": NOW}
    os.environ.update(env)
    ctx = open_context()
    with ctx.write() as conn:  # seeds the roles table
        pass
    conn = ctx.conn
    with transaction(conn):
        for n in range(history):
            role = names[n % roles]
            at = NOW_MS - 86_400_000 * 30 + n
            item_id, _ = item_rows.insert_item(
                conn,
                role=role,
                source="alert",
                priority=1,
                title=f"old {n}",
                body="",
                ref=None,
                dedup_key=None,
                now=at,
                sla_due_at=at + 1_800_000,
            )
            item_rows.ack_items(conn, role, [item_id], now=at + 1000, by="bench")
            attempt_id = attempt_rows.insert_attempt(
                conn,
                key=f"inbox:{role}",
                kind="inbox",
                role=role,
                generation=0,
                rung="resume",
                level=1,
                reason="old",
                ref=None,
                item_ids=[item_id],
                attempted_at=at,
                due_at=at + 120_000,
                supersedes=None,
                recycles=0,
                skipped=None,
            )
            attempt_rows.close_attempt(
                conn, attempt_id, outcome="resolved", reason="items read", now=at + 1000
            )
        for role in names:  # live rows: two unread items per role, one urgent
            for p in (1, 3):
                item_rows.insert_item(
                    conn,
                    role=role,
                    source="alert",
                    priority=p,
                    title="live",
                    body="",
                    ref=None,
                    dedup_key=None,
                    now=NOW_MS - 60_000,
                    sla_due_at=NOW_MS + 600_000,
                )
    ctx.close()
    return home


def in_process(home: Path, *, execute: bool, runs: int) -> float:
    os.environ.update({"DESKD_HOME": str(home), "DESKD_NOW": NOW})
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        ctx = open_context()
        run_tick(ctx, execute=execute)
        ctx.close()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def cold(home: Path, *, runs: int) -> float:
    deskd = Path(sys.executable).parent / "deskd"
    env = {**os.environ, "DESKD_HOME": str(home), "DESKD_NOW": NOW}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([str(deskd), "tick"], env=env, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="5/50 roles, 1k/10k only")
    args = parser.parse_args()
    role_counts = (5, 50) if args.quick else (5, 20, 50)
    histories = (1_000, 10_000) if args.quick else (1_000, 10_000, 100_000)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for roles in role_counts:
            for history in histories:
                home = make_desk(Path(tmp), roles, history)
                dry = in_process(home, execute=False, runs=args.runs)
                in_process(home, execute=True, runs=1)  # first execute records the attempts
                execute = in_process(home, execute=True, runs=args.runs)
                cold_ms = cold(home, runs=max(5, args.runs // 3))
                rows.append(
                    {
                        "roles": roles,
                        "history": history,
                        "dry_ms": round(dry, 2),
                        "execute_ms": round(execute, 2),
                        "cold_ms": round(cold_ms, 1),
                    }
                )
                print(json.dumps(rows[-1]), flush=True)
    print(
        "\n| roles | history | dry-run in-process (ms) | execute in-process (ms) | cold `deskd tick` (ms) |"
    )
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['roles']} | {r['history']:,} | {r['dry_ms']} | {r['execute_ms']} | {r['cold_ms']} |"
        )
    for roles in role_counts:
        by = {r["history"]: r for r in rows if r["roles"] == roles}
        lo, hi = by[histories[0]], by[histories[-1]]
        print(
            f"{roles} roles: {histories[-1]:,}/{histories[0]:,} ratio dry {hi['dry_ms'] / lo['dry_ms']:.2f}, "
            f"execute {hi['execute_ms'] / lo['execute_ms']:.2f}"
        )


if __name__ == "__main__":
    main()
