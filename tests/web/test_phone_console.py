"""The paged person's console on a phone (390 px), in Debian's Chromium against a real
`deskd serve`: the board, the pages list, a question with its options and a page link's
confirm page fit without sideways scrolling (in the page or inside a card), and a page is
acknowledged from its link in two taps without a login.

``CONSOLE_SCREENSHOTS=1`` also saves the questions and the confirm page under docs/images/
(``console-questions-390.png``, ``console-link-390.png``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from browser import IMAGES, launched_browser, needs_chromium  # noqa: F401  (a fixture)
from test_console_readable import CUT_OFF, SIDEWAYS, open_page
from web_helpers import WEB_DESK, Served, serve, urgent

from conftest import Desk

pytestmark = needs_chromium
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Desk, Served, str, int]]:
    """A desk with urgent work, a help page (beta) and a question (alpha), served; with the
    path of an "acknowledge" link to beta's page, signed by the desk's own key."""
    from deskd.adapters.private import private_key_file
    from deskd.service.paging.links import KEY_FILE, make_token

    patch = pytest.MonkeyPatch()
    try:
        for key in list(os.environ):
            if key.startswith("DESKD_"):
                patch.delenv(key)
        desk = Desk(tmp_path_factory.mktemp("phone-desk"), patch)
        desk.write_desk(WEB_DESK)
        for role in ("alpha", "gamma", "theta"):
            urgent(desk, role, f"disk 91% on db-{role} (/var/lib/postgresql/16/main)")
        help_page = desk.json("page", "--title", "need prod credentials", role="beta")
        qid = desk.json("ask", "deploy v2 to production?", "--options", "yes,no", role="alpha")
        key = private_key_file(desk.home / "data" / KEY_FILE)
        token = make_token(key, help_page["page_ids"][0], "ack", expires_ms=desk.now_ms + 3600_000)
        with serve(desk) as server:
            yield desk, server, f"/act/{token}", int(qid["id"])
    finally:
        patch.undo()


def phone(browser: Any, server: Served, *, log_in: bool) -> Any:
    if log_in:
        return open_page(browser, server, PHONE["width"])
    return browser.new_context(viewport=PHONE).new_page()


def fits(tab: Any, name: str, *, shoot: bool = True) -> None:
    assert tab.evaluate(SIDEWAYS) <= 0, name
    assert tab.evaluate(CUT_OFF, "main .card, main table, main td") == [], name
    if shoot and os.environ.get("CONSOLE_SCREENSHOTS") == "1":
        IMAGES.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(IMAGES / f"console-{name}-390.png"))


def test_the_board_pages_and_a_question_fit_a_phone_and_the_question_is_answered(
    browser: Any, served: tuple[Desk, Served, str, int]
) -> None:
    desk, server, _, qid = served
    tab = phone(browser, server, log_in=True)
    try:
        fits(tab, "board", shoot=False)  # test_console_readable.py shoots the full desk's
        roles = tab.locator("#roles tbody tr", has_text="alpha").first
        labels = [c.get_attribute("data-label") for c in roles.locator("td").all()]
        assert labels[4:6] == ["unread", "overdue"]  # each cell shown under its column's name
        tab.goto(server.url + "/pages")
        fits(tab, "questions")  # the questions waiting come first on the pages list
        question = tab.locator(f"[data-question='{qid}']")
        assert question.locator("button").all_inner_texts() == ["yes", "no"]
        question.locator("button", has_text="yes").click()
        tab.wait_for_selector(".flash")
        assert f"answered question {qid}: yes" in tab.inner_text(".flash")
    finally:
        tab.context.close()
    (answered,) = desk.json("questions")
    assert (answered["state"], answered["answer"], answered["answered_by"]) == (
        "answered", "yes", "supervisor",
    )  # fmt: skip


def test_a_page_is_acknowledged_from_its_link_in_two_taps_without_a_login(
    browser: Any, served: tuple[Desk, Served, str, int]
) -> None:
    desk, server, link, _ = served
    tab = phone(browser, server, log_in=False)
    try:
        tab.goto(server.url + link)  # tap 1: the link in the page
        fits(tab, "link")
        assert desk.json("wake", "list", "--open", "--role", "beta")[0]["acked"] is False
        tab.click("#confirm")  # tap 2: the confirm page's button
        tab.wait_for_selector("#done")
        assert "acknowledged" in tab.inner_text("#done")
    finally:
        tab.context.close()
    (wake,) = desk.json("wake", "list", "--open", "--role", "beta")
    assert wake["acked"] is True
