"""Issue 37's first-contact items on the console: a console bound to every address answers
the loopback name, and a channel URL that is all one ``${VAR}`` shows masked, not mangled."""

from __future__ import annotations

from fastapi.testclient import TestClient
from web_helpers import CODE, WEB_DESK, Clock, log_in, make_app, with_channels

from conftest import Desk

HOOK = "json://127.0.0.1:9/hooks/s3cr3t-hook-path-token"


def test_a_console_bound_to_every_address_answers_the_loopback_name(desk: Desk) -> None:
    from deskd.config.settings_model import validate_settings
    from deskd.web.app import create_app

    desk.write_desk(WEB_DESK)
    settings = validate_settings({**desk.env(), "DESKD_SUPERVISOR_ACCESS_CODE": CODE})
    for bound in ("0.0.0.0", "::"):
        # Off loopback the console sits behind TLS: the test client speaks https there.
        with TestClient(create_app(settings, host=bound), base_url="https://127.0.0.1") as c:
            answered = {h: c.get("/login", headers={"Host": h}).status_code for h in HOSTS}
            refused = c.get("/login", headers={"Host": "rebind.attacker.example"})
        assert answered == dict.fromkeys(HOSTS, 200), bound
        assert refused.status_code == 421


HOSTS = ("127.0.0.1", "127.0.0.1:8765", "localhost:8765", "[::1]:8765")


def test_a_channel_url_that_is_all_one_variable_shows_masked(desk: Desk) -> None:
    desk.monkeypatch.setenv("HOOK_URL", HOOK)
    desk.write_desk(with_channels(WEB_DESK, {"hooks": ["${HOOK_URL}"]}, {"alpha": ["hooks"]}))
    listed = desk.json("channels", "--no-check")
    text = desk.ok("channels", "--no-check").stdout
    app = make_app(desk, Clock(desk.now_ms), DESKD_SUPERVISOR_ACCESS_CODE=CODE)
    with TestClient(app) as c:
        assert log_in(c).status_code == 303
        html = c.get("/pages").text
    shown = listed[0]["urls"][0]["url"]
    # The reference as written (apprise's rendering may add its options after it): it names
    # the variable and holds no part of its value.
    assert shown.startswith("${HOOK_URL}"), shown
    for surface in (text, html):
        assert "${HOOK_URL}" in surface
        assert "$...}" not in surface and "s3cr3t-hook-path-token" not in surface
