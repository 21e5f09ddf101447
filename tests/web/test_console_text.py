"""The console shows each thing one way: every time as the desk's local time (the exact
instant in the ``datetime`` and ``title`` of a ``<time>``), event details as words (no raw
``null``, no JSON lists), hook intervals as `hook list` says them, costs in cents."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from web_helpers import CODE, ROLES, full_desk, log_in, make_app

from conftest import Desk

# Text between tags (attributes left out) holding an ISO instant in UTC.
RAW_INSTANT = re.compile(r">[^<]*\d{4}-\d\d-\d\dT\d\d:\d\d[^<]*<")


def test_console_text_reads_one_way(desk: Desk, tmp_path_factory: pytest.TempPathFactory) -> None:
    full_desk(desk, tmp_path_factory)
    desk.ok("hook", "add", "--for", "alpha", "--every", "1d", "--title", "daily digest")
    desk.ok("hook", "add", "--for", "alpha", "--at", "2030-01-02T03:04", "--title", "once")
    app = make_app(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE)
    with TestClient(app) as client:
        log_in(client)
        meetings = [f"/meetings/{m['meeting_id']}" for m in desk.json("meeting", "list", "--all")]
        paths = [
            "/",
            "/events",
            "/tasks",
            "/pages",
            "/wakes",
            "/usage",
            "/meetings",
            *meetings,
            *(f"/roles/{r}" for r in ROLES),
        ]
        pages = {path: client.get(path).text for path in paths}
    assert meetings
    for path, html in pages.items():
        assert not RAW_INSTANT.search(html), (path, RAW_INSTANT.findall(html)[:3])
        assert "<dd>null</dd>" not in html and "<dd>[" not in html, path
        assert not re.search(r"\$\d+\.\d(?!\d)", html), (path, re.findall(r"\$[\d.]+", html))
    assert 'datetime="' in pages["/events"] and "<dd>-</dd>" in pages["/events"]
    assert "every 1d" in pages["/tasks"] and "every 86400s" not in pages["/tasks"]
    costs = re.findall(r"wakes</td><td>([^<]*)</td>", "".join(pages.values()))
    assert costs and all(re.fullmatch(r"-|\$\d+\.\d\d", c) for c in costs), costs
    assert re.search(r'<time datetime="[^"]+Z" title="[^"]+Z">20\d\d-', pages["/"])
