"""The console on a database it found damaged: it remembers the damage itself (run/damaged),
and from then on every page, stream and action answers 503 and nothing is written into it."""

from __future__ import annotations

import hashlib

import pytest
from fastapi.testclient import TestClient
from web_helpers import CODE, WEB_DESK, Clock, csrf_of, log_in, make_app

from conftest import Desk
from db_damage import damage_a_middle_leaf_of_items, populated

pytestmark = pytest.mark.sqlite_only


def test_the_console_stops_writing_to_a_database_it_found_damaged(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    populated(desk)
    clock = Clock(desk.now_ms)
    with TestClient(make_app(desk, clock, DESKD_SUPERVISOR_ACCESS_CODE=CODE)) as client:
        assert log_in(client).status_code == 303
        csrf = csrf_of(client.get("/wakes").text)
        damage_a_middle_leaf_of_items(desk.db_path)
        assert client.get("/").status_code == 503  # the board walks the items: damage met
        assert (desk.home / "run" / "damaged").exists()  # the console marked it itself
        before = hashlib.sha256(desk.db_path.read_bytes()).hexdigest()
        for path in ("/wakes", "/events", "/tasks", "/roles/alpha"):
            assert client.get(path).status_code == 503, path
        paused = client.post("/actions/pause", data={"reason": "x", "csrf": csrf})
        assert paused.status_code == 503 and "damaged" in paused.text
    assert hashlib.sha256(desk.db_path.read_bytes()).hexdigest() == before
