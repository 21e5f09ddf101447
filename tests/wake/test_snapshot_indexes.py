"""The tick's snapshot reads live rows through indexes: its cost follows live rows, not history."""

from __future__ import annotations

from conftest import Desk
from deskd.service.desk.context import open_context
from deskd.service.engine.snapshot import load_snapshot


def test_snapshot_queries_never_scan_history_tables(desk: Desk) -> None:
    desk.ok(
        "inbox",
        "enqueue",
        "--for",
        "alpha",
        "--source",
        "alert",
        "--title",
        "x",
        "--priority",
        "urgent",
    )
    desk.json("tick", "--execute")
    desk.monkeypatch.setenv("DESKD_NOW", desk.now_iso)
    ctx = open_context()
    statements: list[str] = []
    ctx.conn.set_trace_callback(statements.append)
    load_snapshot(ctx.conn, ctx.desk, now=ctx.now)
    ctx.conn.set_trace_callback(None)
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert selects
    for sql in selects:
        plan = " | ".join(r[3] for r in ctx.conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall())
        for table in ("items", "attempts", "pages", "hooks", "pauses"):
            assert f"SCAN {table}" not in plan.replace(f"SCAN {table} USING", "INDEXED"), (
                sql,
                plan,
            )
    ctx.close()


def test_an_executing_tick_never_scans_history_tables(desk: Desk) -> None:
    from deskd.service.engine.tick import run_tick

    desk.ok(
        "inbox",
        "enqueue",
        "--for",
        "alpha",
        "--source",
        "alert",
        "--title",
        "x",
        "--priority",
        "urgent",
    )
    desk.json("tick", "--execute")
    desk.advance(minutes=2)
    desk.monkeypatch.setenv("DESKD_NOW", desk.now_iso)
    ctx = open_context()
    statements: list[str] = []
    ctx.conn.set_trace_callback(statements.append)
    run_tick(ctx, execute=True)
    ctx.conn.set_trace_callback(None)
    checked = 0
    for sql in set(statements):
        if not sql.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE")):
            continue
        plan = " | ".join(r[3] for r in ctx.conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall())
        checked += 1
        for table in ("items", "attempts", "pages", "hooks", "pauses", "tasks", "meetings"):
            assert f"SCAN {table}" not in plan.replace(f"SCAN {table} USING", "INDEXED"), (
                sql,
                plan,
            )
    assert checked > 5
    ctx.close()
