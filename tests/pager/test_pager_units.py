"""The pager's small rules on their own: backoff, quiet windows, the bounded send, channels."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from pager_helpers import desk_with, enqueue, free_port, http_receiver

from conftest import Desk
from deskd.adapters.channels.apprise import AppriseTransport
from deskd.adapters.channels.base import Target
from deskd.core.paging import backoff_ms
from deskd.core.timeparse import iso_utc, to_ms
from deskd.service.paging.silences import quiet_until

NY = "America/New_York"


def ny(text: str) -> int:
    return to_ms(datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(NY)))


def test_backoff_doubles_from_a_minute_and_caps_at_an_hour() -> None:
    assert [backoff_ms(n) // 60_000 for n in range(1, 10)] == [1, 2, 4, 8, 16, 32, 60, 60, 60]


@pytest.mark.parametrize(
    ("spec", "local", "until"),
    [
        ("22:00-07:00", "2026-12-01T23:30", "2026-12-02T12:00:00Z"),  # evening: ends tomorrow
        ("22:00-07:00", "2026-12-02T03:00", "2026-12-02T12:00:00Z"),  # small hours: ends today
        ("22:00-07:00", "2026-12-02T07:00", None),  # the end is outside
        ("22:00-07:00", "2026-12-01T21:59", None),
        ("12:00-13:00", "2026-12-01T12:30", "2026-12-01T18:00:00Z"),
        ("01:00-03:00", "2026-03-08T01:30", "2026-03-08T07:00:00Z"),  # spring forward: 03:00 EDT
        ("22:00-07:00", "2026-10-31T23:00", "2026-11-01T12:00:00Z"),  # fall back: 07:00 EST
    ],
)
def test_quiet_hours_end_at_the_local_end_of_the_window(
    spec: str, local: str, until: str | None
) -> None:
    assert iso_utc(quiet_until(spec, now=ny(local), tz=NY)) == until


class SilentServer:
    """Accepts connections and never answers: a service that hangs. It notes how long each
    connection was held open before the client gave up (closed it): waiting, not CPU, so a
    loaded machine does not stretch it the way it stretches the sender's own work."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.port = int(self.server.getsockname()[1])
        self.held: dict[socket.socket, float] = {}
        self.waits: list[float] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        import select

        while not self.stop.is_set():
            ready, _, _ = select.select([self.server, *self.held], [], [], 0.1)
            for sock in ready:
                if sock is self.server:
                    conn, _ = self.server.accept()
                    self.held[conn] = time.monotonic()
                elif not sock.recv(65536):  # the client closed it: it stopped waiting
                    self.waits.append(time.monotonic() - self.held.pop(sock))
                    sock.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        for conn in self.held:
            conn.close()
        self.server.close()


@pytest.fixture
def silent_server() -> Iterator[SilentServer]:
    server = SilentServer()
    server.thread.start()
    yield server
    server.close()


def test_a_send_is_bounded_whatever_the_service_does(silent_server: SilentServer) -> None:
    # rto: apprise's own read timeout for this URL (default 4 s), still past the 2 s budget,
    # so the budget is what ends the send; it only shortens how long the abandoned socket
    # is held after that, which the test waits out below.
    url = f"json://127.0.0.1:{silent_server.port}/x?rto=2.5"
    targets = [Target(key="t", url=url, masked="m")]
    got = AppriseTransport().send(targets, title="t", body="b", kind="page", budget_s=2.0)
    assert not got["t"].ok and got["t"].error
    # Unbounded, apprise's own timeouts and retries would hold a silent service 3 x 4 s. The
    # server counts the tries and how long each held it, which load does not stretch the way
    # it stretches the sender's CPU (apprise's import among it).
    import gc

    gc.collect()  # a connection apprise dropped is closed when it is collected
    deadline = time.monotonic() + 60  # the server thread notices each close at its next poll
    while (silent_server.held or not silent_server.waits) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert silent_server.waits, "the sender never reached the service"
    assert not silent_server.held, "a connection was left open after the send returned"
    # One try (a retry would start after the budget's retry window closed) held no longer
    # than apprise's own read timeout (the URL's rto): send() itself returns at the budget,
    # leaving apprise's worker to give up on the socket.
    assert len(silent_server.waits) == 1 and silent_server.waits[0] < 8.0, silent_server.waits


def test_an_unreadable_url_fails_permanently_without_retries() -> None:
    targets = [Target(key="t", url="nosuchservice://x", masked="m")]
    got = AppriseTransport().send(targets, title="t", body="b", kind="page", budget_s=5.0)
    assert got["t"].permanent and "cannot read" in (got["t"].error or "")


def test_channels_lists_masked_urls_with_their_roles_and_a_probe(desk: Desk) -> None:
    with http_receiver() as rx:
        desk.write_desk(
            desk_with(
                {"ops": [rx.url()], "dead": [f"json://127.0.0.1:{free_port()}/x"]},
                roles={"alpha": ["ops"], "beta": ["dead"]},
            )
        )
        views = {v["name"]: v for v in desk.json("channels")}
    assert views["ops"]["roles"] == ["alpha"] and views["dead"]["roles"] == ["beta"]
    assert views["ops"]["urls"][0]["check"].startswith("reachable")
    assert views["dead"]["urls"][0]["check"].startswith("unreachable")
    assert "check" not in desk.json("channels", "--no-check")[0]["urls"][0]


def test_channels_test_sends_a_test_message_and_writes_nothing(desk: Desk) -> None:
    with http_receiver() as rx:
        desk.write_desk(desk_with({"ops": [rx.url()]}, default=["ops"]))
        desk.ok("roles")
        before = desk.dump()
        out = desk.json("channels", "test", "ops")
        assert out["status"] == "sent" and len(rx.got) == 1
        assert "test" in rx.titles[0]
        assert desk.dump() == before
    out = desk.run("channels", "test", "nope")
    assert out.exit_code == 1 and "unknown channel 'nope' (channels: ops)" in out.stderr


def test_an_agent_session_cannot_page_people_with_channels_test(desk: Desk) -> None:
    with http_receiver() as rx:
        desk.write_desk(desk_with({"ops": [rx.url()]}, default=["ops"]))
        out = desk.run("channels", "test", "ops", role="alpha")
        assert out.exit_code != 0 and "deskd page" in out.stderr
        assert rx.got == []


def test_a_channel_can_reuse_an_existing_apprise_config_file(desk: Desk, tmp_path: Path) -> None:
    with http_receiver() as rx:
        config = tmp_path / "apprise.yml"
        config.write_text(f"urls:\n  - json://team:pw@127.0.0.1:{rx.port}/from-config\n")
        desk.write_desk(
            desk_with({"team": []}, default=["team"], extra={"team.apprise_config": f'"{config}"'})
        )
        enqueue(desk, priority="urgent")
        desk.json("tick", "--execute")
        assert rx.paths == ["/from-config"]
    (page,) = desk.json("pages")
    assert page["status"] == "sent"
    assert page["channels"][0]["url"].startswith("json://team:****@127.0.0.1")


@pytest.mark.parametrize(
    "args",
    [["pages"], ["silence", "list"], ["tick"], ["status"], ["agent", "command", "--role", "alpha"]],
)
def test_commands_that_send_nothing_never_load_apprise(desk: Desk, args: list[str]) -> None:
    import os
    import subprocess
    import sys

    desk.write_desk(desk_with({"ops": ["json://127.0.0.1:9/x"]}, default=["ops"]))
    probe = (
        "import sys\nfrom deskd.cli.main import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "print('LOADED' if 'apprise' in sys.modules else 'CLEAN')"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env["DESKD_HOME"] = str(desk.home)
    out = subprocess.run(
        [sys.executable, "-c", probe, *args], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.stdout.strip().splitlines()[-1] == "CLEAN", out.stdout + out.stderr
