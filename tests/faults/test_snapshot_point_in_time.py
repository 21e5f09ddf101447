"""The tick's snapshot is one point in time: a write committed while it is being read (between
two of its ~15 queries) is not half-seen — on SQLite (one read transaction) and on PostgreSQL
(REPEATABLE READ), where the writer may be another host."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from conftest import Desk, urgent
from deskd.service.desk.context import open_context
from deskd.service.engine.snapshot import load_snapshot


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"], indirect=True)
def test_a_write_committed_mid_snapshot_is_not_seen(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    urgent(desk, "alpha", "first")
    import deskd.service.engine.snapshot as snapshot_module

    real = snapshot_module.load_task_views

    def task_views_then_a_concurrent_enqueue(*args: Any, **kwargs: Any) -> Any:
        # Another connection, in autocommit: the write is committed when execute returns.
        other = desk.db() if desk.url else sqlite3.connect(desk.db_path, isolation_level=None)
        try:
            other.execute(
                "INSERT INTO items (role, source, priority, title, enqueued_at, sla_due_at) "
                "VALUES ('beta', 'alert', 3, 'late', 1, 2)"
            )
        finally:
            other.close()
        return real(*args, **kwargs)

    monkeypatch.setattr(snapshot_module, "load_task_views", task_views_then_a_concurrent_enqueue)
    monkeypatch.setenv("DESKD_NOW", desk.now_iso)
    ctx = open_context()
    try:
        ctx.conn.execute("SELECT 1").fetchone()  # opened and migrated before the snapshot
        snap = load_snapshot(ctx.conn, ctx.desk, now=ctx.now)
        assert [i.title for i in snap.items] == ["first"]
        assert not ctx.conn.in_transaction  # the read transaction ended
    finally:
        ctx.close()
    after = desk.db()
    try:
        assert {r[0] for r in after.execute("SELECT title FROM items")} == {"first", "late"}
    finally:
        after.close()
