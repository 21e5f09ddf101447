"""The message budget: consensus at the threshold, one position each (never spending), the
message that exhausts it pauses the meeting, which can then only end (lesson 36)."""

from __future__ import annotations

from meeting_helpers import meeting_of, say, status

from conftest import Desk


def refused(desk: Desk, *args: str, role: str | None = None) -> str:
    out = desk.run(*args, "--json", role=role)
    assert out.exit_code == 1, out.stdout
    return str(out.error()["message"])


def test_budget_consensus_one_position_each_then_pause(desk: Desk) -> None:
    m = meeting_of(desk, "beta", "gamma", max_messages=6, consensus_at=2)
    assert status(desk, m)["budget_left"] == 6
    for n in range(3):
        assert say(desk, m, "alpha", f"point {n}")["state"] == "active"
    out = say(desk, m, "beta", "point 3")
    assert (out["state"], out["budget_left"]) == ("consensus", 2)
    assert "consensus" in out["warning"]
    # In consensus only a position (once each) or a decision is accepted.
    assert "consensus" in refused(desk, "meeting", "send", str(m), "--role", "gamma", "--body", "x")
    for role in ("alpha", "beta", "gamma"):
        pos = desk.json("meeting", "position", str(m), "--role", role, "--body", f"{role} says B")
        assert pos["budget_left"] == 2  # positions never spend the budget
    again = refused(desk, "meeting", "position", str(m), "--role", "beta", "--body", "changed")
    assert "already stated a position" in again
    assert say(desk, m, "alpha", "Decision: B", "--kind", "decision")["state"] == "consensus"
    last = say(desk, m, "beta", "Decision: B, by Friday", "--kind", "decision")
    assert (last["state"], last["budget_left"]) == ("paused", 0)
    assert "propose-end" in last["warning"]
    assert status(desk, m)["paused"]["kind"] == "budget"
    # Paused by its budget: nobody speaks, nobody resumes it; it only ends.
    assert "can only end" in refused(
        desk, "meeting", "send", str(m), "--role", "gamma", "--body", "y", "--kind", "decision"
    )
    assert "can only end" in refused(desk, "meeting", "resume", str(m), "--role", "gamma")
    desk.ok("meeting", "propose-end", str(m), "--role", "alpha", "--resolution", "B by Friday")
    desk.ok("meeting", "confirm-end", str(m), "--role", "beta")
    closed = desk.json("meeting", "confirm-end", str(m), "--role", "gamma")
    assert closed["state"] == "closed" and closed["waiting_on"] == []
    assert status(desk, m)["resolution"] == "B by Friday"


def test_positions_belong_to_the_consensus_phase(desk: Desk) -> None:
    m = meeting_of(desk, "beta")
    message = refused(desk, "meeting", "position", str(m), "--role", "beta", "--body", "B")
    assert "consensus phase" in message and "16 messages before consensus" in message


def test_a_position_settles_the_posters_debts(desk: Desk) -> None:
    m = meeting_of(desk, "beta", max_messages=5, consensus_at=4)
    say(desk, m, "alpha", "B or C?")  # enters consensus at once (4 left); beta owes a reply
    assert [o["debtor"] for o in status(desk, m)["owed"]] == ["beta"]
    out = desk.json("meeting", "position", str(m), "--role", "beta", "--body", "B")
    assert out["settled"] == [1] and status(desk, m)["owed"] == []


def test_the_call_refuses_a_threshold_at_or_above_the_budget(desk: Desk) -> None:
    message = refused(
        desk,
        "meeting",
        "call",
        "--by",
        "alpha",
        "--agenda",
        "x",
        "--attendees",
        "beta",
        "--max-messages",
        "4",
        "--consensus-at",
        "4",
    )
    assert "--consensus-at" in message


def test_a_position_may_restate_an_earlier_message(desk: Desk) -> None:
    m = meeting_of(desk, "beta", max_messages=3, consensus_at=2)
    say(desk, m, "beta", "C")
    assert desk.json("meeting", "position", str(m), "--role", "beta", "--body", " c ")["state"] == (
        "consensus"
    )
