"""What the CLI shows, as a person reads it: each fact once, times as ISO or local, never
epoch milliseconds or a raw dict."""

from __future__ import annotations

from conftest import Desk


def test_wake_sources_shows_each_hook_once_and_an_at_time_as_iso(desk: Desk) -> None:
    desk.ok("hook", "add", "--for", "alpha", "--title", "poll", "--every", "15m")
    desk.ok("hook", "add", "--for", "alpha", "--title", "once", "--at", "2026-12-01T10:30")
    listed = desk.json("hook", "list", "--for", "alpha")
    assert [h["spec"] for h in listed] == ["every 15m", "2026-12-01T15:30:00Z"]
    text = desk.ok("wake", "sources", role="alpha").stdout  # its own, inside its session
    assert "hook 1: every 15m —" in text and "every every" not in text
    assert "hook 2: at 2026-12-01T15:30:00Z —" in text


def test_a_naive_deskd_now_is_read_in_the_desk_time_zone_by_cli_and_hook(desk: Desk) -> None:
    """09:00 with no offset is 09:00 in America/New_York (14:00Z), as `--at 09:00` is."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    out = desk.json(
        "inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x",
        DESKD_NOW="2026-12-01T09:00:00",
    )  # fmt: skip
    (item,) = desk.json("inbox", "list", "--for", "alpha", "--all", DESKD_NOW="2026-12-01T09:00")
    assert item["id"] == out["id"] and item["enqueued_at"] == "2026-12-01T14:00:00Z"
    hook = Path(sys.executable).parent / "deskd-session-hook"
    env = {
        "PATH": "/usr/bin:/bin",
        "DESKD_HOME": str(desk.home),
        "DESKD_DB": desk.db_target,
        "DESKD_ROLE": "alpha",
        "DESKD_NOW": "2026-12-01T09:05:00",
    }
    payload = {"hook_event_name": "PostToolUse", "session_id": "s-1", "tool_name": "Bash"}
    subprocess.run([str(hook)], input=json.dumps(payload).encode(), env=env, check=True)
    (role,) = [r for r in desk.json("roles") if r["role"] == "alpha"]
    assert role["last_heartbeat"] == "2026-12-01T14:05:00Z"


def test_the_board_and_the_ledger_use_one_word_for_each_late_item(desk: Desk) -> None:
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "climbing",
            "--priority", "urgent")  # fmt: skip
    desk.json("tick", "--execute")  # a wake attempt now covers alpha's item
    desk.ok("wake", "list", "--open")
    desk.ok("pause", "--role", "beta", "--reason", "maintenance")  # nothing climbs for beta
    desk.ok("inbox", "enqueue", "--for", "beta", "--source", "alert", "--title", "waiting",
            "--priority", "urgent")  # fmt: skip
    desk.advance(minutes=6)
    board = desk.ok("status").stdout
    assert "past their SLA (2): 1 overdue, 1 escalated" in board
    assert "overdue items" not in board
    rows = {r["title"]: r["state"] for r in desk.json("status")["overdue"]}
    assert rows == {"climbing": "escalated", "waiting": "overdue"}
    assert [r["title"] for r in desk.json("ledger", "--state", "escalated")] == ["climbing"]
    assert [r["title"] for r in desk.json("ledger", "--state", "overdue")] == ["waiting"]


def test_inbox_ack_says_what_is_missing(desk: Desk) -> None:
    out = desk.run("inbox", "ack", "--for", "alpha")
    assert out.exit_code == 1
    assert out.stderr == (
        "deskd: say what to ack: --seen (exactly the items alpha was shown) or --id N "
        "(see `deskd inbox list --for alpha`)\n"
    )
    both = desk.run("inbox", "ack", "--for", "alpha", "--seen", "--id", "1")
    assert both.exit_code == 1 and "not both" in both.stderr
