"""The console's usage page: a bar per role per day (the desk's days), the totals by role,
and `?since=`; through the test client, and drawn by a real browser against `deskd serve`."""

from __future__ import annotations

from typing import Any

from browser import launched_browser, needs_chromium  # noqa: F401  (a fixture)
from fastapi.testclient import TestClient
from web_helpers import CODE, log_in, make_app, serve

from conftest import Desk
from usage_rows import finished, with_roles


def used(desk: Desk) -> None:
    """alpha on two local days (New York), beta on one; the clock is 2026-12-01 09:00 local."""
    with_roles(desk)
    finished(desk, "alpha", "2026-12-01T04:30:00Z", (1000, 100, 0, 0), cost=0.5)  # Nov 30
    finished(desk, "alpha", "2026-12-01T13:00:00Z", (3000, 300, 500, 0), cost=1.25)
    finished(desk, "beta", "2026-12-01T13:30:00Z", (200, 20, None, None))


def test_it_shows_a_bar_per_role_per_day_and_the_totals(desk: Desk) -> None:
    used(desk)
    client = TestClient(make_app(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE))
    log_in(client)
    html = client.get("/usage").text
    assert 'href="/usage"' in html  # in the nav
    assert html.count("<meter") == 3
    assert 'data-day="2026-11-30" data-role="alpha"' in html
    assert 'max="3800" value="3800"' in html and 'value="220"' in html
    assert "$1.7500" in html and "5,120" in html  # alpha's cost; every token of the period
    assert client.get("/usage?since=2h").text.count("<meter") == 2  # Nov 30 is out


def test_a_bad_since_is_refused_naming_the_forms(desk: Desk) -> None:
    used(desk)
    client = TestClient(make_app(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE))
    log_in(client)
    response = client.get("/usage?since=last-week")
    assert response.status_code == 400
    assert "a duration back from now like 24h or 30d" in response.text


@needs_chromium
def test_the_browser_draws_the_bars(desk: Desk, browser: Any) -> None:
    used(desk)
    with serve(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE) as server:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(server.url + "/login?next=/usage")
        page.fill("#code", CODE)
        page.click("#login")
        page.wait_for_selector("#usage-days")
        bars = page.locator("#usage-days meter")
        assert bars.count() == 3
        widths = [bars.nth(i).bounding_box()["width"] for i in range(3)]
        assert all(w > 50 for w in widths), widths  # drawn, with the page's CSS
        page.click("nav a[href='/usage']")
        page.fill("#usage-since", "2h")
        page.click("form[action='/usage'] button")
        page.wait_for_url("**/usage?since=2h")
        assert page.locator("#usage-days meter").count() == 2
        assert page.inner_text('#usage-roles tr[data-role="total"]').split()[:2] == ["total", "2"]
        context.close()
        assert errors == []
