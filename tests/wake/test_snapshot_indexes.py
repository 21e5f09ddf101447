"""Every query of the snapshot, the board, an executing tick and the session hook reads live
rows through indexes: its cost follows live rows, not history.

A plan line ``SCAN t`` reads all of ``t``; ``SCAN t USING [COVERING] INDEX i`` reads all of
``i``, which for a history table is as long as the history (``current_sessions`` did this:
85 ms at 100k session rows) unless ``i`` is a partial index over live rows only (``LIVE`` in
tests/desk_history.py: a partial index such as ``launched_at IS NOT NULL`` grows with history
all the same).
Every other scan is refused on every table but the desk's own small ones.
"""

from __future__ import annotations

import io
import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from conftest import Desk
from desk_history import LIVE, busy_desk
from deskd.service.desk.context import DeskContext, open_context
from deskd.service.engine.snapshot import load_snapshot

# Rows per role or per desk, not per event: scanning these is not scanning history (``w``:
# the (role, …) pairs a statement is given, store/tasks.py and store/handoffs.py).
SMALL = {"roles", "meta", "sqlite_sequence", "r", "hosts", "w"}

# The plans read here are SQLite's (EXPLAIN QUERY PLAN); PostgreSQL plans by statistics,
# so its counterpart (tests/ops/test_plans_postgresql.py) first grows a long history.
pytestmark = pytest.mark.sqlite_only


def test_every_live_index_is_partial(desk: Desk) -> None:
    desk.ok("roles")
    ctx = open_context()
    try:
        partial = {
            str(name)
            for name, sql in ctx.conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index'"
            )
            if sql and " WHERE " in sql.upper()
        }
    finally:
        ctx.close()
    assert partial >= LIVE


def history_scans(conn: sqlite3.Connection, statements: list[str]) -> list[tuple[str, str]]:
    """(statement, plan line) for each plan line that reads a whole history table or index."""
    found = []
    checked = 0
    for sql in dict.fromkeys(statements):
        if not sql.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE", "WITH")):
            continue
        checked += 1
        for row in conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall():
            detail = str(row[3])
            words = detail.split()
            if words[0] != "SCAN" or words[1] in SMALL or detail.startswith("SCAN CONSTANT"):
                continue
            if "INDEX" in words and words[words.index("INDEX") + 1] in LIVE:
                continue
            found.append((sql, detail))
    assert checked, "no statement was traced"
    return found


@contextmanager
def traced(ctx: DeskContext) -> Iterator[list[str]]:
    statements: list[str] = []
    ctx.conn.set_trace_callback(statements.append)
    try:
        yield statements
    finally:
        ctx.conn.set_trace_callback(None)


def check(desk: Desk, work: Callable[[DeskContext], Any]) -> None:
    busy_desk(desk)
    ctx = open_context()
    try:
        with traced(ctx) as statements:
            work(ctx)
        assert history_scans(ctx.conn, statements) == []
    finally:
        ctx.close()


def test_the_snapshot_reads_only_live_rows(desk: Desk) -> None:
    check(desk, lambda ctx: load_snapshot(ctx.conn, ctx.desk, now=ctx.now))


def test_the_board_reads_only_live_rows(desk: Desk) -> None:
    from deskd.service.ops.board import board

    check(desk, board)


def test_an_executing_tick_reads_only_live_rows(desk: Desk) -> None:
    from deskd.service.engine.tick import run_tick

    check(desk, lambda ctx: run_tick(ctx, execute=True))


def test_the_session_hook_reads_only_live_rows(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    import deskd.hook

    busy_desk(desk)
    statements: list[str] = []
    real_connect = deskd.store.db.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real_connect(*args, **kwargs)
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(deskd.store.db, "connect", connect)
    monkeypatch.setenv("DESKD_HOME", str(desk.home))
    monkeypatch.setenv("DESKD_ROLE", "alpha")
    for event in ("SessionStart", "PostToolUse"):
        payload = {"hook_event_name": event, "session_id": "a-1", "source": "startup"}
        stdin = io.TextIOWrapper(io.BytesIO(json.dumps(payload).encode()))
        monkeypatch.setattr("sys.stdin", stdin)
        monkeypatch.setattr("sys.stdout", io.StringIO())
        assert deskd.hook.run() == 0
    assert any("FROM sessions" in s for s in statements)
    ctx = open_context()
    try:
        assert history_scans(ctx.conn, statements) == []
    finally:
        ctx.close()


def test_a_full_index_scan_is_caught(desk: Desk) -> None:
    busy_desk(desk)
    ctx = open_context()
    try:
        scans = history_scans(ctx.conn, ["SELECT role, MAX(id) FROM sessions GROUP BY role"])
        assert scans and "USING" in scans[0][1]
        every_launch = "SELECT role, COUNT(*) FROM attempts WHERE launched_at >= 0 GROUP BY role"
        assert history_scans(ctx.conn, [every_launch])  # partial, but as long as history
    finally:
        ctx.close()
