"""A waiting meeting past its reply SLA wakes the missing roles again, once (lessons 14, 25)."""

from __future__ import annotations

from meeting_helpers import (
    call,
    check_in,
    closures,
    fake_agent,
    keys,
    prompt_of,
    tick,
    waiting,
)

from conftest import Desk


def test_late_attendance_is_rearmed_once_with_a_new_generation(desk: Desk) -> None:
    fake_agent(desk)  # real (fake) launches: they land and end, so the role is idle again
    m = call(desk, "beta", "gamma", reply_sla="10m")
    first = tick(desk, execute=True, wait=True)
    assert keys(first) == [f"meeting:{m}:beta:1", f"meeting:{m}:gamma:1"]
    check_in(desk, m, "beta")
    desk.advance(minutes=9)
    assert keys(tick(desk, execute=True, wait=True)) == []
    desk.advance(minutes=1)
    before = desk.dump()
    dry = tick(desk)
    assert desk.dump() == before  # the dry run shows the sweep without applying it
    out = tick(desk, execute=True, wait=True)
    assert keys(dry) == keys(out) == [f"meeting:{m}:gamma:2"]
    assert ("withdrawn", "re-armed as generation 2") in closures(out)
    assert "Overdue: alpha called meeting" in prompt_of(out, "gamma")
    (attempt,) = [a for a in out["attempts"] if a["key"] == f"meeting:{m}:gamma:2"]
    # The bottom rung its presence allows (its parked session resumes), not the old climb.
    assert attempt["rung"] == "resume" and attempt["generation"] == 2
    assert waiting(desk, m) == [("gamma", "not checked in; invited 10m ago (overdue: escalated)")]
    for _ in range(4):
        desk.advance(minutes=10)
        later = tick(desk, execute=True, wait=True)
        # It climbs on as any wake would, but is never re-armed again.
        assert {a["generation"] for a in later["attempts"] if a["role"] == "gamma"} <= {2}
    events = desk.json("meeting", "updates", str(m), "--role", "alpha")["events"]
    assert [e["kind"] for e in events].count("escalated") == 1


def test_checking_in_late_resolves_the_rearmed_wake(desk: Desk) -> None:
    m = call(desk, "beta", reply_sla="5m")
    tick(desk, execute=True)
    desk.advance(minutes=5)
    assert keys(tick(desk, execute=True)) == [f"meeting:{m}:beta:2"]
    check_in(desk, m, "beta")
    desk.advance(minutes=1)
    assert closures(tick(desk, execute=True)) == [("resolved", "checked in, voted or replied")]
    assert desk.json("wake", "list", "--open") == []


def test_a_meeting_everyone_attends_never_escalates(desk: Desk) -> None:
    m = call(desk, "beta", reply_sla="5m")
    check_in(desk, m, "beta")
    desk.advance(minutes=30)
    tick(desk, execute=True)
    events = desk.json("meeting", "updates", str(m), "--role", "alpha")["events"]
    assert "escalated" not in [e["kind"] for e in events]


def test_declining_by_leaving_starts_the_meeting_without_the_role(desk: Desk) -> None:
    m = call(desk, "beta", "gamma")
    check_in(desk, m, "beta")
    out = desk.json("meeting", "leave", str(m), "--role", "gamma", "--reason", "not my area")
    assert out["state"] == "active" and out["waiting_on"] == []
    assert desk.json("inbox", "list", "--for", "gamma") == []  # its invitation is read
    assert keys(tick(desk)) == []
