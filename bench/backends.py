"""The same desk on SQLite and on PostgreSQL (a local unix socket): the tick and hot commands.

One desk of 20 roles with 1k historical items and attempts per backend, built with deskd's
own store functions. Measured: the median wall time of in-process ticks (dry run with
demand, execute with nothing new to do), and fresh processes for the hot commands
(`inbox enqueue`, `inbox list`, `status --json`, the session hook's PostToolUse) on both
backends, all interleaved (bench/interleave.py) with ``python -c pass`` and, on PostgreSQL,
the hook's floor: a minimal psycopg script sending the hook's statements. The
PostgreSQL server is ``DESKD_BENCH_PG_URL`` (an empty database) or a throwaway cluster
started here (harness.pgcluster) and stopped at the end.

    .venv/bin/python bench/backends.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from hook_latency import PG_FLOOR, interpreter_of
from interleave import Form, interleave, report

from deskd.service.desk.context import open_context
from deskd.service.engine.tick import run_tick
from deskd.store import attempts as attempt_rows
from deskd.store import items as item_rows
from deskd.store.db import connect, transaction

NOW_MS = 1_796_140_800_000  # 2026-12-01T14:00:00Z
NOW = "2026-12-01T14:00:00Z"
ROLES = 20
HISTORY = 1000
BIN = Path(sys.executable).parent
PYTHON = interpreter_of(BIN / "deskd-session-hook")


def make_desk(home: Path, database: str) -> dict[str, str]:
    home.mkdir()
    names = [f"r{i:02d}" for i in range(ROLES)]
    toml = ['[desk]\ntimezone = "America/New_York"\ninbox_sources = ["alert"]\n']
    toml += [f'[[roles]]\nname = "{n}"\n' for n in names]
    (home / "deskd.toml").write_text("\n".join(toml))
    env = {"DESKD_HOME": str(home), "DESKD_DB": database, "DESKD_NOW": NOW}
    os.environ.update(env)
    ctx = open_context()
    with ctx.write() as conn:  # roles synced
        pass
    conn = connect(database)
    with transaction(conn):
        for n in range(HISTORY):
            role = names[n % ROLES]
            at = NOW_MS - 86_400_000 * 30 + n
            item_id, _ = item_rows.insert_item(
                conn, role=role, source="alert", priority=1, title=f"old {n}", body="",
                ref=None, dedup_key=None, now=at, sla_due_at=at + 1_800_000,
            )  # fmt: skip
            item_rows.ack_items(conn, role, [item_id], now=at + 1000, by="bench")
            attempt_id = attempt_rows.insert_attempt(
                conn, key=f"inbox:{role}", kind="inbox", role=role, generation=0,
                rung="resume", level=1, reason="old", ref=None, item_ids=[item_id],
                attempted_at=at, due_at=at + 120_000, supersedes=None, recycles=0, skipped=None,
            )  # fmt: skip
            attempt_rows.close_attempt(
                conn, attempt_id, outcome="resolved", reason="items read", now=at + 1000
            )
        for role in names[:5]:  # live demand for the ticks to plan
            item_rows.insert_item(
                conn, role=role, source="alert", priority=3, title="disk 91%", body="",
                ref=None, dedup_key=None, now=NOW_MS - 60_000, sla_due_at=NOW_MS + 600_000,
            )  # fmt: skip
    conn.close()
    ctx.close()
    return env


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


def ticks(runs: int) -> dict[str, float]:
    """Dry run with demand to plan; then execute ticks once the plan is recorded (launches
    are recorded, not started: the executor's processes are not the tick's cost)."""
    from deskd.service.engine import tick as tick_module
    from deskd.service.engine.dispatch import Dispatched

    def record_only(ctx: object, attempt_id: int, role: str) -> Dispatched:
        return Dispatched(attempt_id=attempt_id, role=role, pid=0)

    tick_module.start_executor = record_only  # type: ignore[assignment]
    out: dict[str, float] = {}
    for label, execute in (
        ("tick dry run (in-process)", False),
        ("tick execute (in-process)", True),
    ):
        samples = []
        for n in range(runs + 1):
            ctx = open_context()
            start = time.perf_counter()
            run_tick(ctx, execute=execute)
            if n:  # the first execute tick records the plan; later ones find it recorded
                samples.append(time.perf_counter() - start)
            ctx.close()
        out[label] = median_ms(samples)
    return out


def command_forms(backend: str, env: dict[str, str], floor: Path) -> list[Form]:
    """The hot commands as fresh processes on one backend's desk (PostgreSQL: plus the
    hook's floor, a minimal psycopg script doing the hook's statements)."""
    base = {
        k: v
        for k, v in os.environ.items()
        # Without PYTHONDONTWRITEBYTECODE: installed code has its bytecode cached, and a
        # sandbox that sets it would recompile deskd's modules in every process.
        if not k.startswith("DESKD_") and k != "PYTHONDONTWRITEBYTECODE"
    } | env
    hook_env = base | {"DESKD_ROLE": "r01"}
    payload = json.dumps(
        {"hook_event_name": "PostToolUse", "session_id": "bench-1", "tool_name": "Bash"}
    ).encode()
    forms = [
        Form(f"inbox enqueue|{backend}", [str(BIN / "deskd"), "inbox", "enqueue", "--for",
             "r02", "--source", "alert", "--title", "bench"], base),
        Form(f"inbox list|{backend}", [str(BIN / "deskd"), "inbox", "list", "--for", "r02"],
             base),
        Form(f"status --json|{backend}", [str(BIN / "deskd"), "status", "--json"], base),
        Form(f"session hook|{backend}", [str(BIN / "deskd-session-hook")], hook_env, payload),
    ]  # fmt: skip
    if backend == "postgresql":
        forms.append(Form(f"hook floor (psycopg)|{backend}", [PYTHON, str(floor)], hook_env,
                          payload))  # fmt: skip
    return forms


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    from harness.pgcluster import server

    with server(os.environ.get("DESKD_BENCH_PG_URL")) as url:
        ticked: dict[str, dict[str, float]] = {}
        forms: list[Form] = []
        with tempfile.TemporaryDirectory() as tmp:
            floor = Path(tmp) / "floor.py"
            floor.write_text(PG_FLOOR, encoding="utf-8")
            for backend, database in (
                ("sqlite", str(Path(tmp) / "sqlite" / "data" / "deskd.db")),
                ("postgresql", url),
            ):
                env = make_desk(Path(tmp) / backend, database)
                ticked[backend] = ticks(args.runs)
                forms += command_forms(backend, env, floor)
            bare = Form("python -c pass|", [PYTHON, "-c", "pass"], dict(os.environ))
            figures = report(interleave([*forms, bare], args.runs), bare.name)
        print(f"in-process ticks, median ms of {args.runs}")
        for label in ticked["sqlite"]:
            print(f"  {label:<28} {ticked['sqlite'][label]:>8}  {ticked['postgresql'][label]:>10}")
        print(f"fresh processes, {args.runs} interleaved rounds: wall median (CPU median) ms")
        print(f"  {'':<28} {'sqlite':>16}  {'postgresql':>16}")
        rows: dict[str, dict[str, str]] = {}
        for name, fig in figures.items():
            label, _, backend = name.partition("|")
            cell = f"{fig['wall']['median_ms']:.1f} ({fig['cpu']['median_ms']:.1f})"
            rows.setdefault(label, {})[backend or "sqlite"] = cell
        for label, cells in rows.items():
            print(
                f"  {label:<28} {cells.get('sqlite', '-'):>16}  {cells.get('postgresql', '-'):>16}"
            )


if __name__ == "__main__":
    main()
