"""Access codes are checked off the event loop, on a bounded pool: while a login is being
checked the console still answers, and logins beyond the bound are refused at once.

`deskd serve` runs in a thread of this process (real CLI, real uvicorn, real HTTP), so the
check can be held on an event instead of timed with a stopwatch."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from http_helpers import client, log_in
from web_helpers import WEB_DESK, free_port

from conftest import Desk

HELD = "held-at-the-check"


@contextmanager
def serve_here(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    import uvicorn

    from deskd.cli.serve import serve

    servers: list[Any] = []

    def run(app: Any, **options: Any) -> None:
        server = uvicorn.Server(uvicorn.Config(app, **options))
        servers.append(server)
        server.run()

    monkeypatch.setattr(uvicorn, "run", run)
    for name, value in desk.env().items():
        monkeypatch.setenv(name, value)
    port = free_port()
    thread = threading.Thread(
        target=serve.main, args=(["--port", str(port)],), kwargs={"standalone_mode": False}
    )
    thread.start()
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(600):  # readiness: until uvicorn says it started (not a timing check)
            if servers and servers[0].started:
                break
            threading.Event().wait(0.05)
        yield url
    finally:
        if servers:
            servers[0].should_exit = True
        thread.join(timeout=60)


def test_pages_are_served_while_a_code_is_checked_and_excess_logins_are_refused(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deskd.config.settings_model import validate_settings
    from deskd.service.ops import console as console_service

    desk.write_desk(WEB_DESK)
    desk.json("roles")
    code = console_service.new_access_code(validate_settings(desk.env()))  # a hashed code
    checking, release = threading.Semaphore(0), threading.Event()
    real_scrypt = console_service._scrypt

    def held_scrypt(given: str, salt: bytes) -> bytes:
        if given == HELD:
            checking.release()
            release.wait(120)
        return real_scrypt(given, salt)

    monkeypatch.setattr(console_service, "_scrypt", held_scrypt)
    results: list[int] = []
    others: list[threading.Thread] = []

    def held_login(source: str) -> None:
        with client(url, source) as c:
            results.append(log_in(c, HELD).status_code)

    with serve_here(desk, monkeypatch) as url:
        first = threading.Thread(target=held_login, args=("127.0.0.2",))
        first.start()
        try:
            assert checking.acquire(timeout=120), "the login never reached the check"
            # One code is being checked right now; the console still answers.
            with httpx.Client(base_url=url, timeout=120) as c:
                assert c.get("/static/console.css").status_code == 200
                assert c.get("/login").status_code == 200
            # Fill the pool: 2 checking, 4 waiting (one client each: no throttle involved).
            others += [
                threading.Thread(target=held_login, args=(f"127.0.0.{n}",)) for n in range(3, 8)
            ]
            for t in others:
                t.start()
            assert checking.acquire(timeout=120)  # the second worker is checking too
            wait_for_attempts(desk, 6)
            with client(url, "127.0.0.9") as c:
                refused = log_in(c, code)
            assert refused.status_code == 503 and "too many logins at once" in refused.text
        finally:
            release.set()
            first.join(timeout=120)
            for t in others:
                t.join(timeout=120)
        assert results == [401] * 6
        with client(url, "127.0.0.9") as c:
            assert log_in(c, code).status_code == 303  # the pool is free again


def wait_for_attempts(desk: Desk, count: int) -> None:
    """Until ``count`` clients' logins have been admitted (each counted in the throttle)."""
    conn = desk.db()
    for _ in range(2400):
        if conn.execute("SELECT COUNT(*) FROM console_throttle").fetchone()[0] >= count:
            return
        threading.Event().wait(0.05)
    raise AssertionError(f"fewer than {count} logins were admitted")
