"""Prune reaches the history of tasks, meetings, hand-offs and silences (lesson 44), and
keeps what is live: open tasks and meetings, each role's latest hand-off, live silences."""

from __future__ import annotations

from conftest import Desk


def test_prune_deletes_closed_task_meeting_and_silence_history_and_keeps_the_live(
    desk: Desk,
) -> None:
    done = desk.json("task", "add", "ship it", "--for", "alpha")["id"]
    desk.ok("task", "done", str(done), "--by", "alpha")
    open_task = desk.json("task", "add", "still open", "--for", "beta")["id"]
    meeting = desk.json(
        "meeting", "call", "--by", "alpha", "--agenda", "retro", "--attendees", "beta"
    )
    m = str(meeting["meeting_id"])
    desk.ok("meeting", "check-in", m, "--role", "beta")
    desk.ok("meeting", "send", m, "--role", "alpha", "--body", "went well?")
    desk.ok("meeting", "propose-end", m, "--role", "alpha", "--resolution", "done")
    desk.ok("meeting", "confirm-end", m, "--role", "beta")
    kept_meeting = desk.json(
        "meeting", "call", "--by", "alpha", "--agenda", "planning", "--attendees", "gamma"
    )
    desk.ok(
        "status",
        "set",
        "--role",
        "alpha",
        "--state",
        "working",
        "--session-id",
        "b399b87c-8c3a-56c0-94e2-7fb71eb1a500",
    )
    desk.ok("session", "handoff", "--role", "alpha", "--note", "old note")
    desk.ok("status", "end", "--role", "alpha")
    desk.ok("silence", "add", "--role", "gamma", "--for", "1h", "--reason", "maintenance")
    desk.advance(days=40)
    desk.ok("session", "handoff", "--role", "alpha", "--note", "latest note")
    out = desk.json("prune", "--older-than", "30d")["deleted"]
    assert out["tasks"] == 1 and out["meetings"] == 1 and out["silences"] == 1
    assert out["handoffs"] == 1
    with desk.db() as conn:
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert [r[0] for r in conn.execute("SELECT id FROM tasks")] == [open_task]
        assert [r[0] for r in conn.execute("SELECT id FROM meetings")] == [
            kept_meeting["meeting_id"]
        ]
        assert [r[0] for r in conn.execute("SELECT note FROM handoffs")] == ["latest note"]
