"""Hostile payload fields: an over-long session id is refused (not stored), lone surrogates
are stored as U+FFFD instead of dropping the heartbeat, long tool names are cut."""

from __future__ import annotations

import json

import pytest
from hook_helpers import HookDesk, fixture

from conftest import Desk


@pytest.fixture
def hd(desk: Desk) -> HookDesk:
    hd = HookDesk(desk)
    hd.enqueue("alpha", "disk 91%", priority="urgent")
    return hd


def test_a_megabyte_session_id_is_refused_and_never_stored(hd: HookDesk) -> None:
    run = hd.hook(fixture("post_tool_use", session_id="s" * 1_000_000))
    assert (run.code, run.stdout) == (0, "")
    assert hd.sessions() == []
    assert "session_id longer than 200 characters" in hd.log_text()
    assert hd.desk.db_path.stat().st_size < 1_000_000


def test_lone_surrogates_still_record_the_heartbeat(hd: HookDesk) -> None:
    raw = json.dumps(fixture("post_tool_use", tool_name="Bash")).replace('"Bash"', '"Ba\\ud800sh"')
    run = hd.hook(raw)
    assert run.code == 0
    (session,) = hd.sessions()
    assert session["heartbeats"] == 1
    assert session["last_tool"] == "Ba\ufffd\ufffd\ufffdsh"


def test_a_lone_surrogate_in_the_session_id_is_refused(hd: HookDesk) -> None:
    raw = json.dumps(fixture("post_tool_use")).replace('"session_id": "', '"session_id": "\\udfff')
    assert hd.hook(raw).code == 0
    assert hd.sessions() == []
    assert "refused: not a session id" in hd.log_text()


def test_a_long_tool_name_is_cut(hd: HookDesk) -> None:
    hd.hook(fixture("post_tool_use", tool_name="T" * 5000))
    (session,) = hd.sessions()
    assert len(session["last_tool"]) == 200
