"""Simple-mode authentication: no open reads, the access code, the login throttle, CSRF,
session expiry, logout, cookie flags and security headers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from web_helpers import CODE, WEB_DESK, Clock, csrf_of, log_in, make_app

from conftest import Desk

PAGES = ["/", "/roles/alpha", "/wakes", "/pages", "/meetings", "/meetings/1", "/tasks", "/events"]
TEMPLATES = Path(__file__).resolve().parents[2] / "src" / "deskd" / "web" / "templates"


@pytest.fixture
def console(desk: Desk) -> tuple[Desk, Clock]:
    desk.write_desk(WEB_DESK)
    desk.json("roles")
    return desk, Clock(desk.now_ms)


def client_for(desk: Desk, clock: Clock, **kw: str) -> TestClient:
    return TestClient(make_app(desk, clock, DESKD_SUPERVISOR_ACCESS_CODE=CODE, **kw))


def test_every_page_without_a_session_redirects_to_the_login(
    console: tuple[Desk, Clock],
) -> None:
    desk, clock = console
    with client_for(desk, clock) as client:
        for path in PAGES:
            response = client.get(path, follow_redirects=False)
            assert response.status_code == 303, path
            assert response.headers["location"].startswith("/login?next="), path
        assert client.get("/live").status_code == 401
        refused = client.post("/actions/pause", data={"reason": "x"})
    assert refused.status_code == 401
    assert desk.json("wake", "list") == []  # and nothing was done


def test_wrong_codes_make_the_client_wait_longer_each_time(
    console: tuple[Desk, Clock],
) -> None:
    desk, clock = console
    with client_for(desk, clock) as client:
        for _ in range(3):  # three tries (docs/security.md), then the waits start
            assert log_in(client, "wrong").status_code == 401
        early = log_in(client, CODE)  # even the right code must wait its turn
        assert early.status_code == 429 and "wait 1 s" in early.text
        clock.advance(minutes=1 / 60)
        assert log_in(client, "wrong").status_code == 401
        assert "wait 2 s" in log_in(client, CODE).text  # each wrong code doubles the wait
        clock.advance(minutes=2 / 60)
        assert log_in(client, CODE).status_code == 303


def test_two_wrong_codes_and_a_right_one_start_the_count_again(
    console: tuple[Desk, Clock],
) -> None:
    desk, clock = console
    with client_for(desk, clock) as client:
        for _ in range(2):
            log_in(client, "wrong")
        assert log_in(client, CODE).status_code == 303
        for _ in range(3):
            assert log_in(client, "wrong").status_code == 401


def test_the_login_form_needs_its_csrf_token(console: tuple[Desk, Clock]) -> None:
    desk, clock = console
    with client_for(desk, clock) as client:
        client.get("/login")
        response = client.post("/login", data={"code": CODE}, follow_redirects=False)
    assert response.status_code == 403


def test_an_action_without_or_with_a_wrong_csrf_token_is_403_and_changes_nothing(
    console: tuple[Desk, Clock],
) -> None:
    desk, clock = console
    before = desk.dump()
    with client_for(desk, clock) as client:
        log_in(client)
        missing = client.post("/actions/pause", data={"reason": "deploy"})
        wrong = client.post("/actions/pause", data={"reason": "deploy", "csrf": "forged"})
        right = client.post(
            "/actions/pause",
            data={"reason": "deploy", "csrf": csrf_of(client.get("/").text)},
            follow_redirects=False,
        )
    assert missing.status_code == 403 and wrong.status_code == 403
    assert right.status_code == 303
    assert before != desk.dump()
    assert desk.json("status")["paused"][0]["reason"] == "deploy"


def test_a_session_expires_after_eight_hours(console: tuple[Desk, Clock]) -> None:
    desk, clock = console
    with client_for(desk, clock) as client:
        log_in(client)
        token = csrf_of(client.get("/").text)
        clock.advance(hours=7, minutes=59)
        assert client.get("/", follow_redirects=False).status_code == 200
        clock.advance(minutes=1)
        assert client.get("/", follow_redirects=False).status_code == 303
        expired = client.post("/actions/pause", data={"reason": "x", "csrf": token})
    assert expired.status_code == 401


def test_logging_out_revokes_the_session_cookie(console: tuple[Desk, Clock]) -> None:
    desk, clock = console
    with client_for(desk, clock) as client:
        log_in(client)
        cookie = client.cookies.get("deskd_session")
        token = csrf_of(client.get("/").text)
        out = client.post("/logout", data={"csrf": token}, follow_redirects=False)
        assert out.status_code == 303 and out.headers["location"] == "/login"
        client.cookies.set("deskd_session", str(cookie))  # replaying the old cookie
        assert client.get("/", follow_redirects=False).status_code == 303


def test_a_forged_cookie_is_not_a_session(console: tuple[Desk, Clock]) -> None:
    desk, clock = console
    with client_for(desk, clock) as client:
        log_in(client)
        payload, mac = str(client.cookies.get("deskd_session")).rsplit(".", 1)
        client.cookies.set("deskd_session", payload + "." + mac[::-1])
        assert client.get("/", follow_redirects=False).status_code == 303


def test_cookies_are_httponly_strict_and_secure_off_loopback(desk: Desk) -> None:
    from deskd.config.settings_model import validate_settings
    from deskd.web.app import create_app

    desk.write_desk(WEB_DESK)
    for host, secure in (("127.0.0.1", False), ("0.0.0.0", True)):
        settings = validate_settings(
            {
                **desk.env(),
                "DESKD_SUPERVISOR_ACCESS_CODE": CODE,
                "DESKD_CONSOLE_HOSTS": "testserver",
            }
        )
        # Off loopback the console is behind TLS: the test client speaks https there.
        base = "https://testserver" if secure else "http://testserver"
        with TestClient(create_app(settings, host=host), base_url=base) as client:
            token = csrf_of(client.get("/login").text)
            response = client.post(
                "/login", data={"csrf": token, "code": CODE}, follow_redirects=False
            )
        cookie = response.headers["set-cookie"]
        assert "deskd_session=" in cookie and "HttpOnly" in cookie
        assert "SameSite=strict" in cookie.replace("Strict", "strict")
        assert ("Secure" in cookie) is secure, host
        assert "Max-Age=28800" in cookie


def test_the_login_never_redirects_to_another_site(console: tuple[Desk, Clock]) -> None:
    desk, clock = console
    with client_for(desk, clock) as client:
        for target in ("//evil.example/x", "https://evil.example", "/\\evil.example"):
            token = csrf_of(client.get("/login").text)
            response = client.post(
                "/login", data={"csrf": token, "code": CODE, "next": target}, follow_redirects=False
            )
            assert response.headers["location"] == "/", target
            client.cookies.clear()


def test_every_response_carries_the_security_headers(console: tuple[Desk, Clock]) -> None:
    desk, clock = console
    with client_for(desk, clock) as client:
        responses = [client.get("/login"), client.get("/", follow_redirects=False)]
        log_in(client)
        responses += [client.get(p) for p in ("/", "/static/console.css", "/roles/nobody")]
    for response in responses:
        csp = response.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
        assert "unsafe-inline" not in csp
        assert response.headers["referrer-policy"] == "no-referrer"
        assert response.headers["x-frame-options"] == "DENY"


def test_no_template_has_inline_script_or_style() -> None:
    for path in TEMPLATES.glob("*.html"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), path.name
        assert not re.search(r"\son[a-z]+\s*=", text), path.name  # onclick= and the like
        assert "style=" not in text and "<style" not in text, path.name
        assert "javascript:" not in text, path.name


def test_the_access_code_and_a_wrong_guess_never_show(console: tuple[Desk, Clock]) -> None:
    desk, clock = console
    with client_for(desk, clock) as client:
        failed = log_in(client, "my-guess-123")
    assert "my-guess-123" not in failed.text and CODE not in failed.text
