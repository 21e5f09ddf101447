"""The tick's snapshot reads live rows through indexes: its cost follows live rows, not history."""

from __future__ import annotations

from conftest import Desk
from deskd.service.context import open_context
from deskd.service.snapshot import load_snapshot


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
