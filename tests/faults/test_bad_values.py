"""Bad values that used to stop the desk or busy-loop it (real processes, but for `--loop`
and the ping-URL pairs a real process already covers).

A DESKD_TICK_PING_URL without a scheme is refused when settings load (one line naming the
variable, on every command and in `deskd doctor`) instead of a traceback in every tick; a ping
that fails for any reason never fails the tick. `tick --loop` refuses intervals under the
documented minimum (10s).
"""

from __future__ import annotations

import json

import pytest
from procs import console, deskd, refused_in_one_line

from conftest import Desk, urgent

BAD_PING_URLS = ["hc-ping.com/UUID", "ftp://hc-ping.com/x", "http://[::1/x"]
PING_COMMANDS = [("tick",), ("tick", "--execute"), ("status",)]


@pytest.mark.parametrize("url", BAD_PING_URLS)
@pytest.mark.parametrize("args", PING_COMMANDS)
def test_a_ping_url_without_scheme_is_one_line_naming_the_variable(
    desk: Desk, url: str, args: tuple[str, ...]
) -> None:
    urgent(desk)
    before = desk.dump()
    # Each command and each URL once as a real process; the other pairs through the same
    # console entry in-process (a traceback there fails the test as surely).
    real = PING_COMMANDS.index(args) == BAD_PING_URLS.index(url)
    run = deskd if real else console
    line = refused_in_one_line(run(desk, *args, DESKD_TICK_PING_URL=url))
    assert "DESKD_TICK_PING_URL" in line and "http" in line, line
    assert url not in line  # the URL is a secret (it carries the check's id)
    assert desk.dump() == before


def test_doctor_names_a_bad_ping_url(desk: Desk) -> None:
    out = console(desk, "doctor", "--json", DESKD_TICK_PING_URL="hc-ping.com/UUID")
    assert out.exit_code == 1
    failed = [c for c in json.loads(out.stdout)["checks"] if not c["ok"]]
    assert any("DESKD_TICK_PING_URL" in c["detail"] for c in failed), failed


def test_an_unreachable_ping_never_stops_the_tick(desk: Desk) -> None:
    urgent(desk)
    out = deskd(desk, "tick", "--execute", DESKD_TICK_PING_URL="http://127.0.0.1:9/ping")
    assert out.exit_code == 0, out.stderr
    assert "Traceback" not in out.stderr


def test_a_ping_urllib_cannot_build_is_a_failed_ping_not_a_failed_tick(desk: Desk) -> None:
    """What settings load lets through must still never raise out of the ping."""
    from deskd.service.desk.context import open_context
    from deskd.service.paging.tickping import ping

    ctx = open_context()
    try:
        for bad in ("hc-ping.com/UUID", "http://[::1/x", "http://exa mple/\x00"):
            ctx.settings = ctx.settings._replace(tick_ping_url=bad)
            for phase in ("start", "success", "fail"):
                ping(ctx, phase, "reason \udcff")
    finally:
        ctx.close()


@pytest.mark.parametrize("loop", ["0", "0s", "1", "9s", "١٢", "١٢m"])
def test_tick_loop_under_the_minimum_is_refused(desk: Desk, loop: str) -> None:
    # The console script's entry in-process (a fresh interpreter is not what this checks).
    line = refused_in_one_line(console(desk, "tick", "--loop", loop))
    assert "--loop" in line
    assert ("at least 10s" in line) if loop.isascii() else ("a duration like" in line)
    refused_in_one_line(desk_run := console(desk, "tick", f"--loop={loop}", "--json"))
    assert desk_run.exit_code == 1
