"""DESKD_TICK_PING_URL: every executing tick pings `/start`, then the URL on success or `/fail`
on error; a dry run pings nothing (it does no work, so it must not say the desk ticks); a dead
monitor never fails the tick."""

from __future__ import annotations

import pytest
from pager_helpers import desk_with, free_port, http_receiver

from conftest import Desk
from deskd.service.paging.tickping import ping_url


def test_an_executing_tick_pings_start_then_success_and_a_dry_run_nothing(desk: Desk) -> None:
    with http_receiver() as rx:
        desk.setenv("DESKD_TICK_PING_URL", f"http://127.0.0.1:{rx.port}/ping/abc")
        desk.json("tick")
        assert rx.paths == []
        desk.json("tick", "--execute")
    assert rx.paths == ["/ping/abc/start", "/ping/abc"]


def test_it_pings_fail_with_the_reason_when_the_tick_raises(desk: Desk) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("snapshot exploded")

    desk.monkeypatch.setattr("deskd.service.engine.tick.load_snapshot", broken)
    with http_receiver() as rx:
        desk.setenv("DESKD_TICK_PING_URL", f"http://127.0.0.1:{rx.port}/ping/abc")
        with pytest.raises(RuntimeError):
            desk.run("tick", "--execute")
    assert rx.paths == ["/ping/abc/start", "/ping/abc/fail"]
    assert "snapshot exploded" in rx.got[1][1]["raw"]


def test_a_dead_monitor_never_fails_the_tick(desk: Desk) -> None:
    desk.write_desk(desk_with({}))
    desk.setenv("DESKD_TICK_PING_URL", f"http://127.0.0.1:{free_port()}/ping")
    out = desk.run("tick", "--execute", "--json")
    assert out.exit_code == 0 and out.json()["dry_run"] is False


def test_it_builds_healthchecks_style_urls() -> None:
    assert ping_url("https://hc-ping.com/uuid", "start") == "https://hc-ping.com/uuid/start"
    assert ping_url("https://hc-ping.com/uuid/", "success") == "https://hc-ping.com/uuid"
    assert ping_url("https://hc.example/p?rid=1", "fail") == "https://hc.example/p/fail?rid=1"
