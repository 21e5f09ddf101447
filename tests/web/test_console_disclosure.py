"""What the console shows, over real `deskd serve`: secrets masked in every encoding a page
uses (``tojson`` escapes ``<>&`` and non-ASCII), the tick's ping URL included; and each
supervisor action's event saying how the supervisor was authenticated."""

from __future__ import annotations

import re
from pathlib import Path

from http_helpers import client, csrf_in, keys_for, log_in, signed
from web_helpers import CODE, WEB_DESK, serve

from conftest import Desk

TAIL = "Zq8Xv3Lm9"
ODD_CODE = f"pässwörd<&>'-{TAIL}"  # characters tojson, HTML and JSON each escape differently
PING_TOKEN = "5f3c1e2a-9b7d-4c1e-8f00-123456789abc"
PING_URL = f"https://hc-ping.com/{PING_TOKEN}"
PAGES = ("/", "/roles/alpha", "/events", "/events?role=alpha", "/wakes", "/tasks", "/pages")


def test_secrets_are_masked_in_every_encoding_on_every_page(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    desk.json("roles")
    desk.json(
        "inbox", "enqueue", "--for", "alpha", "--source", "alert",
        "--title", f"ping {PING_URL} failed", "--body", f"tried {PING_URL}",
    )  # fmt: skip
    env = {"DESKD_SUPERVISOR_ACCESS_CODE": ODD_CODE, "DESKD_TICK_PING_URL": PING_URL}
    with serve(desk, **env) as served, client(served.url) as c:
        assert log_in(c, ODD_CODE).status_code == 303
        sent = c.post(
            "/actions/send",
            data={
                "to": "alpha",
                "title": f"the code is {ODD_CODE}",
                "csrf": csrf_in(c.get("/").text),
            },
        )
        assert sent.status_code == 303
        shown = {path: c.get(path).text for path in PAGES}
    for path, html in shown.items():
        assert TAIL not in html and "pässw" not in html and "p\\u00e4ssw" not in html, path
        assert PING_TOKEN not in html, path
    # Masked, not dropped: an event's detail shows the mask itself, as text.
    assert "••••" in shown["/events"]
    assert "••••" in shown["/roles/alpha"]


def test_every_supervisor_action_says_how_the_supervisor_was_authenticated(
    desk: Desk, tmp_path: Path
) -> None:
    desk.write_desk(WEB_DESK)
    desk.json("roles")
    pem, keys_file = keys_for(desk, tmp_path / "keys")
    env = {
        "DESKD_SUPERVISOR_AUTH_MODE": "hybrid",
        "DESKD_SUPERVISOR_KEYS": str(keys_file),
        "DESKD_SUPERVISOR_ACCESS_CODE": CODE,
    }
    with serve(desk, **env) as served, client(served.url) as c:
        assert log_in(c, CODE).status_code == 303
        token = csrf_in(c.get("/").text)
        assert c.post("/actions/pause", data={"role": "alpha", "reason": "x", "csrf": token})
        body = "role=alpha"
        headers = signed(desk, pem, "/actions/resume", body, method="POST")
        resumed = c.post(
            "/actions/resume",
            content=body,
            headers={**headers, "Content-Type": "application/x-www-form-urlencoded"},
        )
        assert resumed.status_code == 303
        events = c.get("/events").text
    rows = desk.db().execute("SELECT kind, actor, auth FROM events ORDER BY id").fetchall()
    by_kind = {r[0]: (r[1], r[2]) for r in rows}
    assert by_kind["paused"] == ("supervisor", "access code, session 1")
    assert by_kind["resumed"] == ("supervisor", "signed, key alice")
    assert all(auth is None for _, actor, auth in rows if actor != "supervisor")
    cells = re.findall(r'<td class="auth">([^<]*)</td>', events)
    assert "access code, session 1" in cells and "signed, key alice" in cells


def test_secrets_are_masked_where_urls_are_shown_never_words_of_the_page(desk: Desk) -> None:
    """A webhook path ``/page`` and an ntfy topic named like a role are secrets in their URLs,
    not in "1 open page", ``page.sent`` or the role's links."""
    from fastapi.testclient import TestClient
    from web_helpers import Clock, make_app, with_channels
    from web_helpers import log_in as log_in_app

    urls = {"hooks": ["json://127.0.0.1:9/page"], "phone": ["ntfy://beta"]}
    desk.write_desk(with_channels(WEB_DESK, urls, {"alpha": ["hooks"], "beta": ["phone"]}))
    desk.json("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x")
    desk.json("page", "--title", "need a hand", role="alpha")
    app = make_app(desk, Clock(desk.now_ms), DESKD_SUPERVISOR_ACCESS_CODE=CODE)
    with TestClient(app) as c:
        assert log_in_app(c).status_code == 303
        shown = {path: c.get(path).text for path in ("/", "/events", "/roles/beta", "/pages")}
    for path, html in shown.items():
        assert "••••" not in html, (path, html[html.find("••••") - 200 :][:400])
    assert 'href="/roles/beta"' in shown["/"] and "page" in shown["/pages"]


def test_a_secret_is_masked_in_page_text_not_only_as_a_word() -> None:
    from deskd.web.console import mask

    assert mask("token abcdefgh12345678 inside xabcdefgh12345678y", ["abcdefgh12345678"]) == (
        "token •••• inside x••••y"
    )
