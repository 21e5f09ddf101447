"""What the CLI shows, as a person reads it: each fact once, times as ISO or local, never
epoch milliseconds or a raw dict."""

from __future__ import annotations

from conftest import Desk


def test_wake_sources_shows_each_hook_once_and_an_at_time_as_iso(desk: Desk) -> None:
    desk.ok("hook", "add", "--for", "alpha", "--title", "poll", "--every", "15m")
    desk.ok("hook", "add", "--for", "alpha", "--title", "once", "--at", "2026-12-01T10:30")
    listed = desk.json("hook", "list", "--for", "alpha")
    assert [h["spec"] for h in listed] == ["every 900s", "2026-12-01T15:30:00Z"]
    text = desk.ok("wake", "sources", role="alpha").stdout  # its own, inside its session
    assert "hook 1: every 900s —" in text and "every every" not in text
    assert "hook 2: at 2026-12-01T15:30:00Z —" in text
