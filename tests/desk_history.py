"""A desk with live rows of every kind the tick reads and some history beside them, and the
partial indexes that hold only live rows: shared by the query-plan tests of both backends
(tests/wake/test_snapshot_indexes.py for SQLite, tests/ops/test_plans_postgresql.py)."""

from __future__ import annotations

from collections.abc import Callable

from conftest import Desk

LIVE = {
    "items_unread", "items_dedup_live", "attempts_live_key", "attempts_in_flight",
    "pages_open", "pages_due", "pages_unsettled", "hooks_due", "pauses_live", "silences_live",
    "tasks_open", "sessions_live", "sessions_role_live", "meetings_live",
    "meetings_open_agenda", "meeting_obligations_open", "meeting_proposals_open",
    "attempts_handed", "task_checks_due", "questions_open",
}  # fmt: skip
"""Partial indexes whose rows are live state (unread, pending, open, active, in flight): a
scan of one reads no history. A new index joins this list only if its condition says so."""


def busy_desk(desk: Desk, more: Callable[[str], None] | None = None) -> None:
    """Unread and read items, sessions, an open and a done task, a wake hook, a meeting and a
    handoff, then an executing tick and two minutes on. ``more`` adds rows before the tick;
    it gets the meeting's id."""
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x",
            "--priority", "urgent")  # fmt: skip
    desk.ok("inbox", "enqueue", "--for", "beta", "--source", "alert", "--title", "old")
    desk.ok("inbox", "ack", "--for", "beta", "--id", "2")
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
    desk.ok(
        "status",
        "set",
        "--role",
        "gamma",
        "--state",
        "working",
        "--session-id",
        "c4ea5c5f-ca36-5431-9797-71b76959823f",
    )
    desk.ok("heartbeat", "--role", "beta", "--session-id", "bd8467c7-306b-5d84-ac82-35f95ce0ac81")
    desk.ok("task", "add", "open one", "--for", "alpha")
    desk.ok("task", "add", "closed one", "--for", "beta")
    desk.ok("task", "done", "2")
    desk.ok("hook", "add", "--for", "beta", "--title", "check", "--every", "1h")
    called = desk.json("meeting", "call", "--by", "alpha", "--agenda", "plan",
                       "--attendees", "beta")  # fmt: skip
    if more is not None:
        more(str(called["meeting_id"]))
    desk.ok("session", "handoff", "--role", "gamma", "--note", "x")
    desk.json("tick", "--execute")
    desk.advance(minutes=2)
    desk.monkeypatch.setenv("DESKD_NOW", desk.now_iso)
