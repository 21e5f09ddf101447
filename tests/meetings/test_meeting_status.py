"""`deskd meeting status` says who the meeting waits on and why; `list` shows open ones; the
tick's meeting queries read live rows through indexes."""

from __future__ import annotations

import pytest
from meeting_helpers import call, check_in, meeting_of, say, status

from conftest import Desk
from deskd.service.desk.context import open_context
from deskd.service.engine.snapshot import load_snapshot


def test_status_names_who_is_waited_on_and_why(desk: Desk) -> None:
    m = call(desk, "beta", "gamma", max_messages=10, reply_sla="10m")
    check_in(desk, m, "beta")
    say(desk, m, "alpha", "Roll back?")
    desk.advance(minutes=12)
    s = status(desk, m)
    assert s["state"] == "waiting" and s["budget_left"] == 9
    assert s["attendees"] == [
        {"role": "alpha", "status": "present", "checked_in_at": "2026-12-01T14:00:00Z"},
        {"role": "beta", "status": "present", "checked_in_at": "2026-12-01T14:00:00Z"},
        {"role": "gamma", "status": "invited", "checked_in_at": None},
    ]
    assert s["waiting_on"] == [
        {"role": "gamma", "why": "not checked in; invited 12m ago (overdue: escalated)"},
        {
            "role": "beta",
            "why": "reply owed to alpha for message #1, overdue since 2026-12-01T14:10:00Z",
        },
    ]
    assert s["owed"] == [
        {
            "message_id": 1,
            "debtor": "beta",
            "creditor": "alpha",
            "due_at": "2026-12-01T14:10:00Z",
            "overdue": True,
        }
    ]
    text = desk.ok("meeting", "status", str(m)).stdout
    assert "waiting on" in text and "not checked in" in text and "reply owed to alpha" in text


def test_list_shows_open_meetings_and_all_with_closed(desk: Desk) -> None:
    first = meeting_of(desk, "beta", agenda="one")
    second = call(desk, "gamma", agenda="two")
    desk.ok("meeting", "propose-end", str(first), "--role", "alpha", "--resolution", "done")
    desk.ok("meeting", "confirm-end", str(first), "--role", "beta")
    (row,) = desk.json("meeting", "list")
    assert (row["meeting_id"], row["state"], row["waiting_on"]) == (second, "waiting", ["gamma"])
    assert [r["meeting_id"] for r in desk.json("meeting", "list", "--all")] == [second, first]
    assert desk.json("meeting", "list", "--all", "--role", "beta")[0]["meeting_id"] == first
    assert "two" in desk.ok("meeting", "list").stdout


@pytest.mark.sqlite_only  # SQLite's plans: tests/ops/test_plans_postgresql.py has PostgreSQL's
def test_the_snapshot_reads_meetings_through_indexes(desk: Desk) -> None:
    m = meeting_of(desk, "beta")
    say(desk, m, "alpha", "Roll back?")
    desk.ok("meeting", "propose-end", str(m), "--role", "alpha", "--resolution", "x")
    other = call(desk, "gamma", agenda="other")
    desk.ok("meeting", "propose-end", str(other), "--role", "alpha", "--resolution", "moot")
    desk.json("tick", "--execute")
    ctx = open_context()
    statements: list[str] = []
    ctx.conn.set_trace_callback(statements.append)
    load_snapshot(ctx.conn, ctx.desk, now=ctx.now)
    ctx.conn.set_trace_callback(None)
    meeting_tables = ("meetings", "meeting_attendees", "meeting_obligations", "meeting_proposals")
    checked = 0
    for sql in statements:
        if not sql.lstrip().upper().startswith("SELECT") or "meeting" not in sql:
            continue
        checked += 1
        plan = " | ".join(r[3] for r in ctx.conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall())
        for table in ("items", "attempts", *meeting_tables):
            assert f"SCAN {table}" not in plan.replace(f"SCAN {table} USING", "INDEXED"), (
                sql,
                plan,
            )
    assert checked >= 5
    ctx.close()


def test_wake_sources_lists_the_meeting_wakes_a_role_owes(desk: Desk) -> None:
    m = call(desk, "beta")
    (source,) = desk.json("wake", "sources", "--role", "beta")["meetings"]
    assert source["key"] == f"meeting:{m}:beta:1" and source["kind"] == "meeting"
    assert any("check-in" in line for line in source["owed"])
    assert desk.json("wake", "sources", "--role", "alpha")["meetings"] == []
