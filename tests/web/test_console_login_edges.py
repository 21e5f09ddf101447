"""Guessing and locking out the console over real HTTP: X-Forwarded-For believed only from
named proxies, a per-client throttle with growing waits that survives a restart, and the
Host check that stops a DNS-rebinding page."""

from __future__ import annotations

from http_helpers import client, log_in
from web_helpers import CODE, WEB_DESK, serve

from conftest import Desk


def test_x_forwarded_for_does_not_make_every_guess_a_new_client(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    with serve(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE) as served, client(served.url) as c:
        statuses = [
            log_in(c, f"guess-{n}", **{"X-Forwarded-For": f"10.9.8.{n}"}).status_code
            for n in range(6)
        ]
    assert statuses[:3] == [401] * 3
    assert statuses[3:] == [429] * 3, statuses  # the same real client, whatever it claims


def test_named_proxies_are_believed_and_their_clients_throttled_apart(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    env = {"DESKD_SUPERVISOR_ACCESS_CODE": CODE, "DESKD_TRUSTED_PROXIES": "127.0.0.1"}
    with serve(desk, **env) as served, client(served.url) as c:
        attacker = {"X-Forwarded-For": "203.0.113.7"}
        for n in range(3):
            assert log_in(c, f"guess-{n}", **attacker).status_code == 401
        assert log_in(c, CODE, **attacker).status_code == 429
        supervisor = log_in(c, CODE, **{"X-Forwarded-For": "198.51.100.2"})
    assert supervisor.status_code == 303


def test_a_flood_slows_its_client_not_the_supervisor_and_a_restart_forgets_nothing(
    desk: Desk,
) -> None:
    desk.write_desk(WEB_DESK)
    with serve(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE) as served:
        with client(served.url, "127.0.0.2") as attacker:
            for n in range(3):  # the documented three, then a wait
                assert log_in(attacker, f"guess-{n}").status_code == 401
            early = log_in(attacker, CODE)
            assert (
                early.status_code == 429 and "wait 1 s (until 2026-12-01T14:00:01Z)" in early.text
            )
            assert early.headers["Retry-After"] == "1" and "UTC UTC" not in early.text
        with client(served.url, "127.0.0.1") as supervisor:
            assert log_in(supervisor, CODE).status_code == 303  # another client: no wait
    # the same instant
    with (
        serve(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE) as served,
        client(served.url, "127.0.0.2") as attacker,
    ):
        assert log_in(attacker, CODE).status_code == 429  # remembered across the restart
    desk.advance(seconds=1)
    with (
        serve(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE) as served,
        client(served.url, "127.0.0.2") as attacker,
    ):
        assert log_in(attacker, CODE).status_code == 303  # the wait is over


def test_a_host_the_console_does_not_answer_to_is_refused_in_one_line(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    env = {"DESKD_SUPERVISOR_ACCESS_CODE": CODE, "DESKD_CONSOLE_HOSTS": "desk.example.org"}
    with serve(desk, **env) as served, client(served.url) as c:
        port = served.url.rsplit(":", 1)[1]
        # A DNS-rebinding page: its own domain now resolves to 127.0.0.1.
        rebound = [
            c.get(path, headers={"Host": f"rebind.attacker.example:{port}"})
            for path in ("/login", "/", "/static/console.css", "/events")
        ]
        posted = c.post("/login", data={"code": CODE}, headers={"Host": "attacker.example"})
        answered = [
            c.get("/login", headers={"Host": host}).status_code
            for host in (f"127.0.0.1:{port}", f"localhost:{port}", "desk.example.org", "LOCALHOST")
        ]
    for response in [*rebound, posted]:
        assert response.status_code == 421
        assert response.text.count("\n") == 1 and "DESKD_CONSOLE_HOSTS" in response.text
        assert "attacker.example" in response.text
    assert answered == [200, 200, 200, 200]
