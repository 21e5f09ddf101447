"""The console reads well, in a real browser against a real `deskd serve`: long details wrap
instead of running off the right edge, an event's detail reads as fields (not JSON with
``\\u0026`` escapes), a role page offers only the pause or resume its state allows, and no
page scrolls sideways at a phone's width.

``CONSOLE_SCREENSHOTS=1`` also saves each page at 390 and 1280 px under docs/images/.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from browser import IMAGES, launched_browser, needs_chromium  # noqa: F401  (a fixture)
from web_helpers import Served, full_desk, serve

from conftest import Desk

# A PATH list as a failed launch reports it: long, and without a space to break at.
LONG_PATH = "PATH=" + ":".join(
    f"/opt/toolchains/v{n}/very-long-directory-name/bin" for n in range(12)
)
REASON = "Tom's deploy & the db's <migration>"
PAGES = {
    "board": "/",
    "role": "/roles/alpha",
    "wakes": "/wakes?explain=alpha",
    "pages": "/pages",
    "meetings": "/meetings",
    "meeting": "/meetings/2",
    "tasks": "/tasks",
    "events": "/events",
}

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Desk, Served]]:
    """The full desk, plus beta paused for a reason full of characters JSON escapes and a
    PATH list as the launch detail of alpha's wakes."""
    patch = pytest.MonkeyPatch()
    try:
        for key in list(os.environ):
            if key.startswith("DESKD_"):
                patch.delenv(key)
        desk = Desk(tmp_path_factory.mktemp("readable-desk"), patch)
        full_desk(desk, tmp_path_factory)
        desk.ok("pause", "--role", "beta", "--reason", REASON)
        desk.ok("pause", "--role", "gamma", "--reason", LONG_PATH)
        conn = desk.db()
        conn.execute("UPDATE attempts SET launch_detail = ? WHERE role = 'alpha'", (LONG_PATH,))
        conn.commit()
        with serve(desk) as server:
            yield desk, server
    finally:
        patch.undo()


def open_page(browser: Any, server: Served, width: int) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 800 else 800})
    tab = context.new_page()
    tab.goto(server.url + "/login")
    assert server.code
    tab.fill("#code", server.code)
    tab.click("#login")
    tab.wait_for_selector("#roles")
    return tab


@pytest.fixture
def wide(browser: Any, served: tuple[Desk, Served]) -> Iterator[Any]:
    tab = open_page(browser, served[1], 1280)
    try:
        yield tab
    finally:
        tab.context.close()


@pytest.fixture
def phone(browser: Any, served: tuple[Desk, Served]) -> Iterator[Any]:
    tab = open_page(browser, served[1], 390)
    try:
        yield tab
    finally:
        tab.context.close()


SIDEWAYS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
# Elements whose content runs past their own right edge (hidden, or behind a scroll bar).
CUT_OFF = """(sel) => [...document.querySelectorAll(sel)]
  .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.id || e.tagName)"""


def test_long_details_wrap_on_the_board_wakes_and_events(
    wide: Any, served: tuple[Desk, Served]
) -> None:
    _, server = served
    for path, cell in [("/", "#attempts"), ("/wakes", "#wakes"), ("/events", "#events")]:
        wide.goto(server.url + path)
        assert LONG_PATH[:40] in wide.inner_text(cell), path
        assert wide.evaluate(CUT_OFF, "main .card") == [], path
        assert wide.evaluate(SIDEWAYS) <= 0, path


def test_an_event_detail_reads_as_fields(wide: Any, served: tuple[Desk, Served]) -> None:
    _, server = served
    wide.goto(server.url + "/events?role=beta")
    html = wide.content()
    assert "\\u0026" not in html and "\\u0027" not in html and "\\u003c" not in html
    row = wide.locator("#events tr", has=wide.locator("dd", has_text="Tom's")).first
    fields = row.locator("dl.fields")
    assert fields.locator("dt").all_inner_texts() == ["reason"]
    assert fields.locator("dd").inner_text() == REASON  # as text: markup stays text
    assert row.locator("dd migration").count() == 0


def test_a_role_page_offers_only_what_its_state_allows(
    wide: Any, served: tuple[Desk, Served]
) -> None:
    _, server = served
    wide.goto(server.url + "/roles/beta")  # paused
    assert wide.locator("form[action='/actions/resume']").count() == 1
    assert wide.locator("form[action='/actions/pause']").count() == 0
    assert "paused" in wide.inner_text("main section.card >> nth=0")
    wide.goto(server.url + "/roles/alpha")  # running
    assert wide.locator("form[action='/actions/pause']").count() == 1
    assert wide.locator("form[action='/actions/resume']").count() == 0
    wide.click("form[action='/actions/pause'] >> input[name=reason]")
    wide.fill("form[action='/actions/pause'] >> input[name=reason]", "lunch")
    wide.click("form[action='/actions/pause'] >> button")
    wide.wait_for_selector(".flash")
    assert wide.locator("form[action='/actions/resume']").count() == 1
    assert wide.locator("form[action='/actions/pause']").count() == 0
    wide.click("form[action='/actions/resume'] >> button")
    wide.wait_for_selector("form[action='/actions/pause']")


def test_no_page_scrolls_sideways_at_a_phones_width(
    phone: Any, wide: Any, served: tuple[Desk, Served]
) -> None:
    _, server = served
    for name, path in PAGES.items():
        phone.goto(server.url + path)
        assert phone.evaluate(SIDEWAYS) <= 0, path
        shoot(phone, name, 390)
        if os.environ.get("CONSOLE_SCREENSHOTS") == "1":
            wide.goto(server.url + path)
            shoot(wide, name, 1280)


def shoot(tab: Any, name: str, width: int) -> None:
    """The top of the page (one screen, not the whole page: the images stay small)."""
    if os.environ.get("CONSOLE_SCREENSHOTS") == "1":
        IMAGES.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(IMAGES / f"console-{name}-{width}.png"))
