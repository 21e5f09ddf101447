"""The console in a real browser: Playwright drives Debian's Chromium against a real
`deskd serve` process. Log in, see the board, act (send an item, ack a wake, silence a
role), watch the board change through server-sent events, log out.

``CONSOLE_SCREENSHOTS=1`` also saves a screenshot of each page under docs/images/.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import IMAGES, launched_browser, needs_chromium  # noqa: F401  (a fixture)
from web_helpers import Served, full_desk, serve

from conftest import Desk

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Desk, Served]]:
    """One full desk and one real server for this module's tests (each starts its own
    browser context, so no test inherits another's login)."""
    patch = pytest.MonkeyPatch()
    try:
        for key in list(os.environ):
            if key.startswith("DESKD_"):
                patch.delenv(key)
        home = tmp_path_factory.mktemp("browser-desk")
        desk = Desk(home, patch)
        full_desk(desk, tmp_path_factory)
        with serve(desk) as server:
            yield desk, server
    finally:
        patch.undo()


@pytest.fixture
def page(browser: Any, served: tuple[Desk, Served]) -> Iterator[Any]:
    """A fresh browser context, logged in; fails the test on a script or CSP error."""
    _, server = served
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.goto(server.url + "/login")
    assert server.code
    tab.fill("#code", server.code)
    tab.click("#login")
    tab.wait_for_selector("#roles")
    try:
        yield tab
    finally:
        context.close()
    assert errors == []  # no CSP violation, no script error, no missing resource


def enqueue_from_another_process(desk: Desk, title: str) -> None:
    """What an alert script does: a separate `deskd` process commits an item."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(desk.env())
    deskd = Path(sys.executable).with_name("deskd")
    args = ["inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", title]
    subprocess.run([str(deskd), *args], env=env, check=True, capture_output=True, timeout=30)


def unread_of(page: Any, role: str) -> int:
    return int(page.inner_text(f'#roles tr[data-role="{role}"] td.unread'))


def shoot(page: Any, name: str) -> None:
    if os.environ.get("CONSOLE_SCREENSHOTS") == "1":
        IMAGES.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(IMAGES / f"console-{name}.png"), full_page=True)


def test_a_wrong_code_is_refused_and_the_right_one_opens_the_board(
    browser: Any, served: tuple[Desk, Served]
) -> None:
    _, server = served
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(server.url + "/")
    assert page.url.startswith(server.url + "/login?next=")
    shoot(page, "login")
    page.fill("#code", "wrong-code")
    page.click("#login")
    assert "wrong access code" in page.inner_text("main")
    assert server.code
    page.fill("#code", server.code)
    page.click("#login")
    page.wait_for_selector("#roles")
    assert page.url == server.url + "/"
    assert "online" in page.inner_text('#roles tr[data-role="alpha"]')
    page.click("#logout")
    page.wait_for_selector("#code")
    page.goto(server.url + "/")
    assert page.url.startswith(server.url + "/login")
    context.close()


def test_the_supervisor_sends_an_item_acks_a_wake_and_silences_a_role(page: Any) -> None:
    before = unread_of(page, "alpha")
    page.select_option("#send-to", "alpha")
    page.fill("#send-title", "look at the failing deploy")
    page.click("#send")
    page.wait_for_selector(".flash")
    assert "sent item" in page.inner_text(".flash")
    assert unread_of(page, "alpha") == before + 1

    row = page.locator("#attempts tr", has=page.locator("input[name=note]")).first
    attempt = row.get_attribute("data-attempt")
    row.locator("input[name=note]").fill("the supervisor has it")
    row.locator("button").click()
    page.wait_for_selector(".flash")
    assert f"acknowledged attempt {attempt}" in page.inner_text(".flash")
    assert page.locator(f'#attempts tr[data-attempt="{attempt}"] .s-acked').count() == 1

    page.click("nav >> text=Pages")
    page.select_option("#silence-role", "theta")
    page.fill("#silence-reason", "rebuilding theta's box")
    page.click("#silence")
    page.wait_for_selector(".flash")
    assert "silenced theta" in page.inner_text(".flash")
    assert "rebuilding theta's box" in page.inner_text("#silences")


def test_the_board_follows_the_desk_through_server_sent_events(
    page: Any, served: tuple[Desk, Served]
) -> None:
    desk, _ = served
    page.wait_for_selector("body[data-live=on]")  # the event stream is connected
    before = unread_of(page, "alpha")
    enqueue_from_another_process(desk, "disk 95% on db1")
    page.wait_for_function(
        "(n) => document.querySelector('#roles tr[data-role=alpha] td.unread').innerText == n",
        arg=str(before + 1),
        timeout=15000,
    )
    assert page.evaluate("() => document.body.getAttribute('data-refreshed')")


def test_every_page_renders_in_the_browser(page: Any, served: tuple[Desk, Served]) -> None:
    _, server = served
    shoot(page, "board")
    for name, path in [
        ("role", "/roles/alpha"),
        ("wakes", "/wakes?explain=alpha"),
        ("pages", "/pages"),
        ("meetings", "/meetings"),
        ("meeting", "/meetings/2"),
        ("tasks", "/tasks"),
        ("usage", "/usage"),
        ("events", "/events"),
    ]:
        page.goto(server.url + path)
        assert page.locator("main section").count() >= 1, path
        shoot(page, name)
    page.goto(server.url + "/roles/alpha")
    assert page.locator("svg.timeline g.attempt").count() >= 2
