"""A page's action links: signed, bound to one page and one action, expiring, used once; a GET
(a chat app's or a mail scanner's preview) never changes anything; only the confirm page's
POST acts, without a login, and its events say it came through a link."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import make_app

from conftest import Desk

from pager_helpers import desk_with, http_receiver, page_token_of  # isort: skip  (on the path web_helpers adds)

pytestmark = pytest.mark.parametrize("backend", ["sqlite", "postgresql"], indirect=True)

URL = "https://deskd.example.com"
LINK = re.compile(r"^([A-Z][\w ]+): https://deskd\.example\.com(/act/\S+)$", re.M)


def paged(desk: Desk, title: str = "deploy v2?") -> tuple[dict[str, Any], dict[str, str], str]:
    """alpha asks for help; the page goes to a real loopback receiver. Returns the request,
    the links by label (paths), and the message as sent."""
    desk.extra["DESKD_CONSOLE_URL"] = URL
    with http_receiver() as rx:
        desk.write_desk(desk_with({"ops": [rx.url()]}, default=["ops"], short_ladder=False))
        out = desk.json("page", "--title", title, role="alpha")
        ((_, body),) = rx.got
    assert body["title"].endswith(page_token_of(desk, out["page_ids"][0]))
    return out, dict(LINK.findall(body["message"])), body["message"]


def client(desk: Desk) -> TestClient:
    return TestClient(make_app(desk, clock=lambda: desk.now_ms))


def attempt(desk: Desk, attempt_id: int) -> tuple[Any, ...]:
    with desk.db() as conn:
        row = conn.execute(
            "SELECT ack_until, ack_note, outcome FROM attempts WHERE id = ?", (attempt_id,)
        ).fetchone()
    return tuple(row)


def test_it_acts_once_from_the_confirm_pages_post_and_never_on_a_get(desk: Desk) -> None:
    out, links, message = paged(desk)
    page_id = out["page_ids"][0]
    assert sorted(links) == ["Acknowledge", "Pause the role", "Resolve", "Snooze 1 h", "Snooze 4 h"]
    assert f"Console: {URL}/pages#page-{page_id}" in message
    assert f"deskd wake ack {out['attempt_id']}" in message  # the shell way is always there
    before = desk.dump()
    with client(desk) as http:
        for path in links.values():  # every previewer's GET: a confirm page, no change
            got = http.get(path)
            assert got.status_code == 200 and 'id="confirm"' in got.text
        assert desk.dump() == before
        done = http.post(links["Acknowledge"])
        assert done.status_code == 200 and "acknowledged" in done.text
        after = desk.dump()
        again = http.post(links["Acknowledge"])
    assert again.status_code == 409 and "used already" in again.text
    assert desk.dump() == after
    until, note, outcome = attempt(desk, out["attempt_id"])
    assert outcome == "pending" and until == desk.now_ms + 4 * 3600 * 1000
    assert note == f"acknowledged via link from page {page_id}, sent to ops"
    (item,) = desk.json("inbox", "list", "--for", "alpha", "--all")
    assert item["id"] == out["item_id"] and item["state"] == "read"  # the help is answered
    with desk.db() as conn:
        rows = conn.execute(
            "SELECT kind, actor, auth FROM events WHERE kind = 'attempt.acked'"
        ).fetchall()
        used = conn.execute("SELECT page_id, action FROM page_links_used").fetchall()
    assert [tuple(r) for r in rows] == [
        ("attempt.acked", "supervisor", f"link from page {page_id}, sent to ops")
    ]
    assert [tuple(r) for r in used] == [(page_id, "ack")]


def test_forged_altered_expired_and_unknown_links_change_nothing(desk: Desk) -> None:
    out, links, _ = paged(desk)
    ack = links["Acknowledge"]
    page_id, action, expiry, mac = ack.removeprefix("/act/").split(".")
    flipped = mac[:-1] + ("A" if mac[-1] != "A" else "B")
    bad = {
        f"/act/{page_id}.{action}.{expiry}.{flipped}": "signature does not match",
        f"/act/{page_id}.resolve.{expiry}.{mac}": "signature does not match",  # wrong action
        f"/act/{int(page_id) + 1}.{action}.{expiry}.{mac}": "signature does not match",
        f"/act/{page_id}.{action}.{int(expiry, 16) + 3600:x}.{mac}": "signature does not match",
        f"/act/{page_id}.destroy.{expiry}.{mac}": "not a deskd page link",
        "/act/garbage": "not a deskd page link",
    }
    before = desk.dump()
    with client(desk) as http:
        for path, why in bad.items():
            for method in (http.get, http.post):
                got = method(path)
                assert got.status_code == 403 and why in got.text, (path, got.text)
        desk.advance(hours=24, seconds=1)  # the default lifetime is 24 h
        for method in (http.get, http.post):
            got = method(ack)
            assert got.status_code == 403 and "expired" in got.text
    assert desk.dump() == before
    assert attempt(desk, out["attempt_id"])[0] is None


def test_snooze_holds_the_page_without_answering_and_pause_pauses_the_role(desk: Desk) -> None:
    out, links, _ = paged(desk)
    with client(desk) as http:
        assert http.post(links["Snooze 1 h"]).status_code == 200
        assert http.post(links["Pause the role"]).status_code == 200
    until, note, _ = attempt(desk, out["attempt_id"])
    assert until == desk.now_ms + 3600 * 1000 and note.startswith("snoozed 1 h via link")
    (item,) = desk.json("inbox", "list", "--for", "alpha", "--all")
    assert item["state"] != "read"  # a snooze answers nothing
    with desk.db() as conn:
        paused = conn.execute("SELECT role, reason FROM pauses WHERE ended_at IS NULL").fetchall()
    assert [tuple(r) for r in paused] == [
        ("alpha", f"paused via link from page {out['page_ids'][0]}, sent to ops")
    ]


def test_a_link_lifetime_is_a_setting_and_without_an_address_the_page_says_the_commands(
    desk: Desk,
) -> None:
    desk.extra["DESKD_LINK_TTL"] = "1h"
    _, links, _ = paged(desk)
    with client(desk) as http:
        desk.advance(hours=1)
        assert http.get(links["Resolve"]).status_code == 403
    del desk.extra["DESKD_CONSOLE_URL"]
    with http_receiver() as rx:
        desk.write_desk(desk_with({"ops": [rx.url()]}, default=["ops"], short_ladder=False))
        out = desk.json("page", "--title", "which branch?", role="beta")
        ((_, body),) = rx.got
    assert "/act/" not in body["message"]
    assert f"deskd wake ack {out['attempt_id']}" in body["message"]
    assert 'deskd pause --role beta --reason "…"' in body["message"]
    bad = desk.run("status", DESKD_LINK_TTL="soon")
    assert bad.exit_code != 0 and "DESKD_LINK_TTL" in bad.stderr
