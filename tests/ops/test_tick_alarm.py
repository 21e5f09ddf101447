"""The missed-tick alarm as a function of `now` (what `deskd serve` calls every 30 s): the
desk's default channels hear once when a host's executing ticks stop, and "settled" when
they resume; a paused desk holds it; nobody hears about a stop nobody was told of."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import Desk

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pager"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
from pager_helpers import desk_with, http_receiver
from web_helpers import serve

both = pytest.mark.parametrize("backend", ["sqlite", "postgresql"], indirect=True)


def check(desk: Desk) -> list[dict[str, Any]]:
    """One missed-tick check at the desk's pinned instant."""
    from deskd.service.desk.context import open_context
    from deskd.service.ops.tick_alarm import check_ticks

    ctx = open_context(now=desk.now_ms)
    try:
        return check_ticks(ctx)
    finally:
        ctx.close()


def alarms(desk: Desk) -> list[dict[str, Any]]:
    with desk.db() as conn:
        return [dict(r) for r in conn.execute("SELECT * FROM tick_alarms ORDER BY id")]


@both
def test_it_pages_once_when_a_host_stops_and_settles_when_it_resumes(desk: Desk) -> None:
    with http_receiver() as ops:
        desk.write_desk(desk_with({"ops": [ops.url()]}, default=["ops"], short_ladder=False))
        desk.ok("tick", "--execute", DESKD_HOST_NAME="build")
        desk.advance(minutes=2)
        assert check(desk) == [] and ops.titles == []  # 2 minutes: not overdue yet
        desk.advance(minutes=2)
        (sent,) = check(desk)
        assert sent["host"] == "build" and sent["kind"] == "stopped" and sent["status"] == "sent"
        assert ops.titles == ["deskd: host build stopped ticking"]
        desk.advance(minutes=5)
        assert check(desk) == []  # once per silence
        desk.ok("tick", "--execute", DESKD_HOST_NAME="build")
        (settled,) = check(desk)
        assert settled["kind"] == "settled" and settled["status"] == "sent"
        assert ops.titles[1] == "deskd: settled — host build ticks again"
        assert check(desk) == []
    rows = alarms(desk)
    assert [(r["kind"], r["status"], r["host"]) for r in rows] == [
        ("stopped", "sent", "build"),
        ("settled", "sent", "build"),
    ]
    assert rows[0]["last_tick_at"] == rows[1]["last_tick_at"]  # the same silence
    assert "deskd timer status" in rows[0]["body"]


@both
def test_a_paused_desk_holds_the_alarm_until_it_resumes(desk: Desk) -> None:
    with http_receiver() as ops:
        desk.write_desk(desk_with({"ops": [ops.url()]}, default=["ops"], short_ladder=False))
        desk.ok("tick", "--execute", DESKD_HOST_NAME="build")
        desk.ok("pause", "--reason", "maintenance")
        desk.advance(minutes=4)
        assert check(desk) == []
        (held,) = alarms(desk)
        assert held["status"] == "held" and held["held_why"] == "paused: the desk (maintenance)"
        desk.ok("resume")
        desk.advance(minutes=1)  # the held row is looked at again a minute later
        (sent,) = check(desk)
        assert sent["status"] == "sent" and ops.titles == ["deskd: host build stopped ticking"]


@both
def test_a_stop_nobody_heard_of_settles_silently(desk: Desk) -> None:
    desk.ok("tick", "--execute", DESKD_HOST_NAME="build")  # no channel at all
    desk.advance(minutes=4)
    assert check(desk) == []
    (stopped,) = alarms(desk)
    assert stopped["status"] == "queued" and stopped["next_try_at"] is None
    assert stopped["held_why"] == "no channel: the desk has no default_channels"
    desk.ok("tick", "--execute", DESKD_HOST_NAME="build")
    assert check(desk) == []
    stopped, settled = alarms(desk)
    assert stopped["status"] == "resolved"  # never sent, and now never will be
    assert settled["kind"] == "settled" and settled["status"] == "resolved"


def test_a_running_console_sends_the_alarm(desk: Desk) -> None:
    with http_receiver() as ops:
        desk.write_desk(desk_with({"ops": [ops.url()]}, default=["ops"], short_ladder=False))
        desk.ok("tick", "--execute", DESKD_HOST_NAME="build")
        desk.advance(minutes=10)
        with serve(desk) as served:  # DESKD_NOW pinned ten minutes after the last tick
            deadline = time.monotonic() + 120  # a real hang only: it ends on the page
            while not ops.titles and time.monotonic() < deadline:
                assert served.proc.poll() is None
                time.sleep(0.1)
            assert httpx.get(f"{served.url}/metrics", timeout=60).status_code == 200
        assert ops.titles == ["deskd: host build stopped ticking"]
