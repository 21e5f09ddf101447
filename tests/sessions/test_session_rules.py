"""The pure session rules (core/sessions.py): the desk day in the desk timezone, which
sessions must wind down, and the SESSION_DONE sentinel."""

from __future__ import annotations

import json
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from deskd.core.sessions import (
    desk_day,
    latest_boundary,
    prompt_with_handoff,
    sentinel_seen,
)

NY = "America/New_York"


def ms(text: str, tz: str = NY) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(tz)).timestamp() * 1000)


NOW = ms("2026-12-01T09:00")


def test_a_session_started_at_0330_belongs_to_the_previous_desk_day() -> None:
    assert desk_day(ms("2026-12-01T03:30"), tz=NY) == date(2026, 11, 30)
    assert ms("2026-12-01T03:30") < latest_boundary(NOW, tz=NY)


def test_a_session_started_at_0430_belongs_to_today() -> None:
    assert desk_day(ms("2026-12-01T04:30"), tz=NY) == date(2026, 12, 1)
    assert ms("2026-12-01T04:30") >= latest_boundary(NOW, tz=NY)


def test_overnight_work_is_not_cut_at_midnight() -> None:
    started = ms("2026-11-30T23:00")
    assert started >= latest_boundary(ms("2026-12-01T03:59"), tz=NY)
    assert started < latest_boundary(ms("2026-12-01T04:00"), tz=NY)


def test_the_boundary_is_local_not_utc() -> None:
    # 04:00 EST is 09:00 UTC; a UTC-date rule would have cut at 19:00 local the day before.
    assert latest_boundary(NOW, tz=NY) == ms("2026-12-01T04:00")
    assert latest_boundary(ms("2026-12-01T03:00"), tz=NY) == ms("2026-11-30T04:00")
    assert ms("2026-11-30T20:00") >= latest_boundary(ms("2026-12-01T02:00"), tz=NY)


@pytest.mark.parametrize("day", ["2026-03-08", "2026-11-01"])  # spring forward, fall back
def test_the_boundary_stays_at_0400_local_across_dst(day: str) -> None:
    boundary = latest_boundary(ms(f"{day}T12:00"), tz=NY)
    local = datetime.fromtimestamp(boundary / 1000, tz=ZoneInfo(NY))
    assert (local.date().isoformat(), local.hour, local.minute) == (day, 4, 0)


def test_rollover_at_is_configurable() -> None:
    assert ms("2026-12-01T05:30") < latest_boundary(NOW, tz=NY, rollover_at="06:00")
    assert ms("2026-12-01T06:30") >= latest_boundary(NOW, tz=NY, rollover_at="06:00")


def test_the_sentinel_must_stand_on_its_own_line() -> None:
    stream = [
        {"type": "system", "subtype": "init", "session_id": "s"},
        {
            "type": "assistant",
            "message": {"content": [{"type": "text", "text": "Parked.\nSESSION_DONE"}]},
        },
    ]
    assert sentinel_seen("\n".join(json.dumps(d) for d in stream))
    assert sentinel_seen("work parked\nSESSION_DONE\n")
    assert not sentinel_seen("I will print SESSION_DONE later")
    assert not sentinel_seen(json.dumps({"type": "result", "result": "done"}))
    assert not sentinel_seen("")


def test_a_fresh_prompt_carries_the_hand_off_after_the_desk_prompt() -> None:
    text = prompt_with_handoff("Load the skill.", note="Next: PR 12", written="09:00")
    assert text.startswith("Load the skill.") and text.endswith("Next: PR 12")
    assert prompt_with_handoff("", note="x", written="t").startswith("Hand-off from")
