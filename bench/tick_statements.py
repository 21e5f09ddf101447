"""Statements (and wall time) of one quiet executing tick, by the desk's number of roles.

For each ``--roles`` count and backend, a desk of that many roles, each with the same live
state — an online session with no native id (so nothing is planned, and a fresh session
would start from a hand-off), an open task, a hand-off note — and ``--history`` closed rows
in each of sessions, attempts (finished idle-task wakes) and handoffs, spread over the
roles. One executing tick settles the desk; the next is counted (every statement sent
through the desk's connection) and timed. On PostgreSQL (a throwaway cluster, or
``DESKD_BENCH_PG_URL``), after ``ANALYZE``, the snapshot's sessions statement is explained
and the index it reads is printed with its time.

    .venv/bin/python bench/tick_statements.py --roles 50 1000 --history 100000 \\
        [--backend sqlite postgresql] [--ticks 15]

For a before/after, run the same file with another tree's src first on PYTHONPATH.

``--processes N`` then times N interleaved rounds of whole ``deskd tick --execute`` processes
on each backend's desks (bench/interleave.py: fresh processes, the order rotated each round,
wall and CPU medians, their ratio to the smallest desk), which is what cron pays each minute:
the interpreter and imports as well as the tick. The session-hook relay is off for them
(``DESKD_HOOK_RELAY=off``): on PostgreSQL the first executing tick would start one, which a
running desk pays once, not each minute.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

NOW = "2026-12-01T14:00:00Z"
NOW_MS = 1_796_140_800_000
DAY = 86_400_000


def _many(conn: Any, sql: str, rows: list[tuple[Any, ...]]) -> None:
    if not hasattr(conn, "raw"):
        conn.executemany(sql, rows)
        return
    from deskd.store.dialect import placeholders

    with conn.raw.cursor() as cur:
        cur.executemany(placeholders(sql), rows)


def build(home: Path, db: str | None, roles: int, history: int) -> None:
    from deskd.service.desk.context import open_context
    from deskd.service.work.sessions import handoff
    from deskd.service.work.tasks import add_task
    from deskd.store.db import transaction
    from deskd.store.sessions import record_heartbeat

    names = [f"r{i:04d}" for i in range(roles)]
    home.mkdir(parents=True)
    toml = ['[desk]\ntimezone = "America/New_York"\n'] + [
        f'[[roles]]\nname = "{n}"\n' for n in names
    ]
    (home / "deskd.toml").write_text("\n".join(toml))
    os.environ.update({"DESKD_HOME": str(home), "DESKD_NOW": NOW})
    if db:
        os.environ["DESKD_DB"] = db
    else:
        os.environ.pop("DESKD_DB", None)
    ctx = open_context()
    with ctx.write():  # seeds the roles table
        pass
    t0 = NOW_MS - 30 * DAY

    def at(n: int) -> int:
        return t0 + (29 * DAY * n) // max(history, 1)

    with transaction(ctx.conn):
        _many(
            ctx.conn,
            "INSERT INTO sessions (role, native_id, agent, state, started_at, ended_at, "
            "end_reason, last_heartbeat_at, heartbeats) "
            "VALUES (?, ?, 'claude', 'ended', ?, ?, 'rollover', ?, 3)",
            [
                (names[n % roles], f"old-{n}", at(n), at(n) + 1000, at(n) + 500)
                for n in range(history)
            ],
        )
        _many(ctx.conn,
            "INSERT INTO attempts (key, kind, role, rung, level, reason, attempted_at, due_at, "
            "outcome, outcome_reason, resolved_at, launch_status, launched_at, finished_at, "
            "task_ids) VALUES (?, 'idle_task', ?, 'spawn', 0, 'old', ?, ?, 'resolved', 'done', "
            "?, 'finished', ?, ?, '[]')",
            [
                (f"idle_task:{names[n % roles]}", names[n % roles], at(n), at(n), at(n) + 9,
                 at(n) + 1, at(n) + 9)
                for n in range(history)
            ],
        )  # fmt: skip
        _many(
            ctx.conn,
            "INSERT INTO handoffs (role, note, by, created_at) VALUES (?, 'old', ?, ?)",
            [(names[n % roles], names[n % roles], at(n)) for n in range(history)],
        )
    for name in names:
        with ctx.write() as conn:
            record_heartbeat(conn, role=name, now=NOW_MS - 30_000)
        add_task(ctx, title=f"open task of {name}", role=name, by=name)
        handoff(ctx, role=name, note=f"where {name} left off")
    ctx.close()


def measure(home: Path, db: str | None, roles: int, history: int, ticks: int = 1) -> dict[str, Any]:
    import deskd.service.engine.tick as tick_module
    from deskd.service.desk.context import open_context

    def refuse(*args: object, **kwargs: object) -> None:
        raise SystemExit("the quiet tick launched an agent")

    tick_module.start_executor = refuse  # type: ignore[assignment]
    build(home, db, roles, history)
    ctx = open_context()
    tick_module.run_tick(ctx, execute=True)
    ctx.close()
    ctx = open_context()
    conn: Any = ctx.conn
    out: dict[str, Any] = {"roles": roles, "backend": "postgresql" if db else "sqlite"}
    if db:
        conn.raw_execute("ANALYZE")
    statements: list[str] = []
    if db:
        real = conn.execute

        def execute(sql: str, params: Any = ()) -> Any:
            statements.append(sql)
            return real(sql, params)

        conn.execute = execute
    else:
        conn.set_trace_callback(statements.append)
    start, cpu = time.perf_counter(), time.process_time()
    tick_module.run_tick(ctx, execute=True)
    walls = [(time.perf_counter() - start) * 1000]
    cpus = [(time.process_time() - cpu) * 1000]
    out["statements"] = len(statements)
    if db:
        from deskd.store.sessions import current_sessions

        conn.execute = real
        sessions: list[tuple[str, Any]] = []
        conn.execute = lambda sql, params=(): (sessions.append((sql, params)), real(sql, params))[1]
        current_sessions(conn)
        conn.execute = real
        out["sessions_ms"], out["sessions_indexes"] = 0.0, []
        for sql, params in sessions:  # each role's session id, then the rows (one join before)
            (doc,) = conn.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params).fetchone()
            plan = (json.loads(doc) if isinstance(doc, str) else doc)[0]
            out["sessions_ms"] = round(out["sessions_ms"] + plan["Execution Time"], 3)
            out["sessions_indexes"] = sorted({*out["sessions_indexes"], *_indexes(plan["Plan"])})
    ctx.close()
    for _ in range(ticks - 1):  # more timed ticks, each on a context of its own
        ctx = open_context()
        ctx.conn  # noqa: B018 — connected before the clock starts, like the counted one
        start, cpu = time.perf_counter(), time.process_time()
        tick_module.run_tick(ctx, execute=True)
        walls.append((time.perf_counter() - start) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
        ctx.close()
    # Medians, and CPU beside wall: on a loaded machine wall time is mostly waiting for a core.
    out["wall_ms"] = round(statistics.median(walls), 1)
    out["cpu_ms"] = round(statistics.median(cpus), 1)
    return out


def _indexes(plan: dict[str, Any]) -> list[str]:
    found = [plan["Index Name"]] if "Index Name" in plan else []
    for child in plan.get("Plans", []):
        found += _indexes(child)
    return found


def _db(url: str, roles: int) -> str:
    return urlsplit(url)._replace(path=f"/bench_{roles}").geturl()


def processes(backend: str, desks: dict[int, tuple[Path, str | None]], args: Any) -> None:
    """``args.processes`` interleaved rounds of ``deskd tick --execute`` on each desk."""
    if args.processes <= 0:
        return
    import sys

    from interleave import Form, interleave, report

    deskd = str(Path(sys.executable).with_name("deskd"))
    forms = []
    for roles, (home, db) in desks.items():
        env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
        env.update({"DESKD_HOME": str(home), "DESKD_NOW": NOW, "DESKD_HOOK_RELAY": "off"})
        if db:
            env["DESKD_DB"] = db
        forms.append(Form(f"{backend} {roles} roles", [deskd, "tick", "--execute"], env))
    figures = report(interleave(forms, args.processes), forms[0].name)
    print(json.dumps({"backend": backend, "processes": args.processes, "ticks": figures}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--roles", type=int, nargs="+", default=[50, 1000])
    parser.add_argument("--history", type=int, default=100_000)
    parser.add_argument("--backend", nargs="+", default=["sqlite", "postgresql"])
    parser.add_argument("--ticks", type=int, default=1, help="timed ticks (medians reported)")
    parser.add_argument("--processes", type=int, default=0, help="rounds of whole ticks")
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as tmp:
        for backend in args.backend:
            if backend == "sqlite":
                for roles in args.roles:
                    print(
                        json.dumps(
                            measure(Path(tmp) / f"s{roles}", None, roles, args.history, args.ticks)
                        )
                    )
                processes(backend, {r: (Path(tmp) / f"s{r}", None) for r in args.roles}, args)
                continue
            import psycopg
            from harness.pgcluster import server

            with server(os.environ.get("DESKD_BENCH_PG_URL")) as url:
                for roles in args.roles:
                    with psycopg.connect(url, autocommit=True) as admin:
                        admin.execute(f"CREATE DATABASE bench_{roles}")
                    db = _db(url, roles)
                    print(
                        json.dumps(
                            measure(Path(tmp) / f"p{roles}", db, roles, args.history, args.ticks)
                        )
                    )
                desks = {r: (Path(tmp) / f"p{r}", _db(url, r)) for r in args.roles}
                processes(backend, desks, args)


if __name__ == "__main__":
    main()
