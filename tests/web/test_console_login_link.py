"""`deskd serve --open-link` through a real server: the printed link logs a browser in once,
within five minutes, and leads to the board without the token in the address; a used,
expired or unknown link gets the login form and is never throttled (it cannot be guessed, and
a flood of wrong ones must not lock the supervisor out); a new code ends an older link; the
database and the desk's logs never hold the token."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from browser import launched_browser, needs_chromium  # noqa: F401  (a fixture)
from http_helpers import client, csrf_in
from web_helpers import CODE, WEB_DESK, Served, log_in, serve

from conftest import Desk


def link_of(server: Served) -> str:
    lines = [line for line in server.printed if line.startswith("login link")]
    assert len(lines) == 1, server.printed
    return lines[0].rsplit(": ", 1)[1].strip()


def token_of(link: str) -> str:
    return urlsplit(link).query.removeprefix("token=")


def path_of(link: str) -> str:
    parts = urlsplit(link)
    return f"{parts.path}?{parts.query}"


def test_the_link_works_once_and_leaves_a_working_session(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    with serve(desk, "--open-link") as server:
        link = link_of(server)
        assert link.startswith(server.url + "/login/link?token=")
        with client(server.url) as c:
            followed = c.get(path_of(link))
            assert followed.status_code == 303
            assert followed.headers["location"] == "/"  # the token leaves the address bar
            assert "deskd_session" in c.cookies
            board = c.get("/")
            assert board.status_code == 200 and 'id="roles"' in board.text
            # The session is an ordinary one: its CSRF token lets it act, and it logs out.
            assert c.post("/logout", data={"csrf": csrf_in(board.text)}).status_code == 303
            assert c.get("/").status_code == 303
        with client(server.url) as again:
            second = again.get(path_of(link))
            assert second.status_code == 401
            assert "used already" in second.text and 'name="code"' in second.text
            assert "deskd_session" not in again.cookies
    token = token_of(link)
    # Neither the database nor anything under the desk folder (logs, tick.log) holds it.
    for path in desk.home.rglob("*"):
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path
    with desk.db() as conn:
        stored = conn.execute("SELECT value FROM console_meta WHERE name = 'login_link'")
        assert token not in stored.fetchone()[0]


def test_a_link_expires_after_five_minutes(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    with serve(desk, "--open-link") as first:
        link = link_of(first)
    desk.advance(minutes=5)  # the same desk, restarted without --open-link, five minutes on
    with serve(desk) as later, client(later.url) as c:
        refused = c.get(path_of(link))
        assert refused.status_code == 401 and "expired" in refused.text
        assert "deskd_session" not in c.cookies


def test_a_new_start_replaces_the_link_and_a_flood_of_wrong_links_locks_nobody_out(
    desk: Desk,
) -> None:
    desk.write_desk(WEB_DESK)
    with serve(desk, "--open-link") as first:
        old, code = link_of(first), first.code
    with serve(desk, "--open-link") as server:
        link = link_of(server)
        with client(server.url, "127.0.0.3") as c:
            replaced = c.get(path_of(old))
            assert replaced.status_code == 401 and "unknown or was replaced" in replaced.text
        # Another local process floods the link route: loopback is one client, the supervisor's
        # too. A link cannot be guessed, so wrong ones are refused and never counted.
        with client(server.url) as flood:
            answers = {flood.get("/login/link?token=" + "x" * n).status_code for n in range(40)}
            assert answers == {401}
        with client(server.url) as owner:  # the same client: its right link and code both work
            assert owner.get(path_of(link)).status_code == 303
            assert owner.get("/").status_code == 200
        assert code is not None
        with client(server.url) as owner:
            assert log_in(owner, code).status_code == 303  # the first try


def test_a_new_code_ends_a_link_printed_before_it(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    with serve(desk, "--open-link") as first:
        old = link_of(first)
    with serve(desk, "--new-code") as server, client(server.url) as c:
        ended = c.get(path_of(old))
        assert ended.status_code == 401 and "deskd_session" not in c.cookies


def test_the_link_names_a_host_the_console_accepts(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    wild = serve(desk, "--open-link", "--host", "0.0.0.0", DESKD_SUPERVISOR_ACCESS_CODE=CODE)
    with wild as server:
        link = link_of(server)
        assert urlsplit(link).hostname == "localhost"  # not 0.0.0.0: a name browsers accept
        with client(f"http://localhost:{urlsplit(link).port}") as c:
            rebound = c.get(path_of(link), headers={"Host": "evil.example"})
            assert rebound.status_code == 421  # the Host check comes first: the link is unspent
            assert c.get(path_of(link)).status_code == 303
            # A wildcard bind listens on loopback too: its addresses are answered.
            assert c.get("/login", headers={"Host": "127.0.0.1"}).status_code == 200


def test_signed_mode_has_no_link(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    out = desk.run("serve", "--open-link", DESKD_SUPERVISOR_AUTH_MODE="signed")
    assert out.exit_code == 1
    assert "--open-link" in out.stderr and "signed" in out.stderr


@needs_chromium
def test_chromium_follows_the_link_to_the_board(desk: Desk, browser: Any) -> None:
    desk.write_desk(WEB_DESK)
    with serve(desk, "--open-link") as server:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            tab = context.new_page()
            tab.goto(link_of(server))
            tab.wait_for_selector("#roles")
            assert tab.url == server.url + "/"
            assert [c["name"] for c in context.cookies()] == ["deskd_session"]
        finally:
            context.close()


def test_racing_uses_of_one_link_start_one_session(desk: Desk) -> None:
    import threading

    from deskd.config.load import load_settings
    from deskd.service.desk.context import open_context
    from deskd.service.ops.console_sessions import issue_login_link, use_login_link

    desk.write_desk(WEB_DESK)
    settings = load_settings(desk.env())
    ctx = open_context(settings=settings, now=desk.now_ms)
    token = issue_login_link(ctx)
    ctx.close()
    results: list[str | None] = []

    def use() -> None:
        each = open_context(settings=settings, now=desk.now_ms)
        try:
            results.append(use_login_link(each, token))
        finally:
            each.close()

    threads = [threading.Thread(target=use) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(None) == 1 and len(results) == 6
