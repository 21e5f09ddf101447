"""The tasks and sessions parts of the tick's snapshot read live rows through indexes."""

from __future__ import annotations

import pytest

from conftest import Desk
from deskd.service.desk.context import open_context
from deskd.service.engine.snapshot import load_snapshot


@pytest.mark.sqlite_only  # SQLite's plans: tests/ops/test_plans_postgresql.py has PostgreSQL's
def test_task_and_rollover_loaders_never_scan_history_tables(desk: Desk) -> None:
    desk.advance(hours=-6)
    desk.ok(
        "status",
        "set",
        "--role",
        "gamma",
        "--state",
        "resting",
        "--session-id",
        "1389be85-ec59-5c3a-b0e0-0d3ff85682da",
    )
    desk.advance(hours=6)
    desk.ok("task", "add", "urgent one", "--for", "alpha", "--priority", "urgent")
    desk.ok("task", "add", "idle one", "--for", "beta")
    desk.ok("task", "add", "closed one", "--for", "beta")
    desk.ok("task", "done", "3")
    desk.ok("session", "handoff", "--role", "beta", "--note", "x")
    desk.json("tick", "--execute", "--wait")
    desk.monkeypatch.setenv("DESKD_NOW", desk.now_iso)
    ctx = open_context()
    statements: list[str] = []
    ctx.conn.set_trace_callback(statements.append)
    snapshot = load_snapshot(ctx.conn, ctx.desk, now=ctx.now)
    ctx.conn.set_trace_callback(None)
    assert snapshot.tasks and snapshot.rollovers
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    for sql in selects:
        plan = " | ".join(r[3] for r in ctx.conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall())
        tables = ["tasks", "task_notes", "attempts", "handoffs"]
        if "started_at <" in sql:  # the rollover query (current_sessions is not this issue's)
            tables.append("sessions")
        for table in tables:
            assert f"SCAN {table}" not in plan.replace(f"SCAN {table} USING", "INDEXED"), (
                sql,
                plan,
            )
    ctx.close()
