"""The idle deadline is evaluated by the tick (lesson 25); a paused meeting's demands are
withdrawn on the next tick and its debts raise nothing (lessons 5, 6, 7)."""

from __future__ import annotations

from meeting_helpers import (
    closures,
    demanded,
    meeting_of,
    open_attempts,
    say,
    status,
    tick,
)

from conftest import Desk


def test_idle_pause_withdraws_the_owed_reply_attempt(desk: Desk) -> None:
    m = meeting_of(desk, "beta", reply_sla="10m", idle="60m")
    say(desk, m, "alpha", "Roll back?")
    desk.advance(minutes=10)
    out = tick(desk, execute=True)
    assert f"owed_reply:{m}:beta" in {a["key"] for a in out["attempts"]}
    desk.advance(minutes=49)
    assert status(desk, m)["state"] == "active"
    desk.advance(minutes=1)
    # Nobody reads the meeting: the tick alone pauses it (a dry run shows the same outcome).
    before = desk.dump()
    dry = tick(desk)
    assert desk.dump() == before
    out = tick(desk, execute=True)
    assert closures(dry) == closures(out)
    assert ("withdrawn", "meeting paused or closed") in closures(out)
    assert ("withdrawn", "items no longer live") in closures(out)  # its unread message
    assert open_attempts(desk) == []
    s = status(desk, m)
    assert s["state"] == "paused" and s["paused"]["kind"] == "idle"
    assert s["owed"] and "paused, raises nothing" in s["waiting_on"][0]["why"]
    desk.advance(hours=6)
    assert tick(desk, execute=True)["attempts"] == []  # an unpayable debt raises nothing


def test_any_attendee_resumes_an_idle_meeting_and_debts_are_due_again_later(desk: Desk) -> None:
    m = meeting_of(desk, "beta", "gamma", reply_sla="10m", idle="30m")
    desk.ok("meeting", "leave", str(m), "--role", "gamma", "--reason", "x")
    say(desk, m, "alpha", "Roll back?")
    desk.advance(minutes=30)
    tick(desk, execute=True)
    assert status(desk, m)["state"] == "paused"
    refused = desk.run("meeting", "send", str(m), "--role", "beta", "--body", "y", "--json")
    assert refused.exit_code == 1 and "meeting resume" in refused.error()["message"]
    out = desk.json("meeting", "resume", str(m), "--role", "beta")
    assert out["state"] == "active"
    (owed,) = status(desk, m)["owed"]
    assert owed["due_at"] == "2026-12-01T14:40:00Z" and not owed["overdue"]
    assert f"owed_reply:{m}:beta" not in demanded(desk)
    desk.advance(minutes=10)
    assert f"owed_reply:{m}:beta" in demanded(desk)


def test_activity_moves_the_idle_deadline(desk: Desk) -> None:
    m = meeting_of(desk, "beta", idle="30m")
    desk.advance(minutes=20)
    say(desk, m, "beta", "still here")
    desk.advance(minutes=20)
    tick(desk, execute=True)
    assert status(desk, m)["state"] == "active"
    desk.advance(minutes=10)
    tick(desk, execute=True)
    assert status(desk, m)["state"] == "paused"


def test_a_manual_pause_withdraws_demands_on_the_next_tick(desk: Desk) -> None:
    m = meeting_of(desk, "beta", "gamma")
    desk.ok("meeting", "leave", str(m), "--role", "gamma", "--reason", "x")
    say(desk, m, "alpha", "Roll back?")
    desk.advance(minutes=10)
    assert tick(desk, execute=True)["attempts"]
    desk.ok("meeting", "pause", str(m), "--role", "beta", "--reason", "waiting for data")
    desk.advance(minutes=1)
    out = tick(desk, execute=True)
    assert {c[0] for c in closures(out)} == {"withdrawn"}
    assert open_attempts(desk) == []
    assert desk.json("meeting", "resume", str(m), "--role", "alpha")["state"] == "active"


def test_status_shows_a_due_idle_pause_without_writing(desk: Desk) -> None:
    m = meeting_of(desk, "beta", idle="30m")
    desk.advance(minutes=30)
    before = desk.dump()
    assert status(desk, m)["state"] == "paused"
    assert desk.dump() == before  # read paths don't write (lesson 43)
