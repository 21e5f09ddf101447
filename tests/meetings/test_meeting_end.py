"""The termination handshake (lessons 14, 17, 36, 37, 38) and what closing leaves behind
(lessons 5, 7)."""

from __future__ import annotations

from meeting_helpers import (
    closures,
    demanded,
    meeting_of,
    open_attempts,
    prompt_of,
    say,
    status,
    tick,
    waiting,
)

from conftest import Desk


def propose(desk: Desk, m: int, role: str = "alpha", resolution: str = "roll back 118") -> dict:
    out: dict = desk.json(
        "meeting", "propose-end", str(m), "--role", role, "--resolution", resolution
    )
    return out


def test_propose_and_confirm_close_the_meeting(desk: Desk) -> None:
    m = meeting_of(desk, "beta", "gamma")
    out = propose(desk, m)
    assert out["state"] == "closing"
    assert [w["role"] for w in out["waiting_on"]] == ["beta", "gamma"]  # alpha confirmed
    assert desk.json("meeting", "confirm-end", str(m), "--role", "beta")["state"] == "closing"
    assert waiting(desk, m) == [("gamma", "vote owed on ending (proposed by alpha)")]
    done = desk.json("meeting", "confirm-end", str(m), "--role", "gamma")
    assert done == {"meeting_id": m, "state": "closed", "waiting_on": [], "proposal_id": 1}
    assert status(desk, m)["resolution"] == "roll back 118"
    refused = desk.run("meeting", "send", str(m), "--role", "beta", "--body", "late", "--json")
    assert refused.exit_code == 1 and "closed" in refused.error()["message"]


def test_the_vote_wake_carries_a_new_generation_and_says_it_closes_it(desk: Desk) -> None:
    m = meeting_of(desk, "beta", "gamma")
    propose(desk, m)
    wakes = demanded(desk)
    assert set(wakes) == {f"meeting:{m}:beta:2", f"meeting:{m}:gamma:2"}
    prompt = prompt_of(tick(desk), "beta")
    assert "alpha proposes to end meeting" in prompt
    assert "Your vote closes it once gamma also confirm." in prompt
    desk.ok("meeting", "confirm-end", str(m), "--role", "gamma")
    assert "Your vote closes it." in prompt_of(tick(desk), "beta")


def test_only_one_proposal_is_open_at_a_time(desk: Desk) -> None:
    m = meeting_of(desk, "beta")
    propose(desk, m)
    out = desk.run(
        "meeting", "propose-end", str(m), "--role", "beta", "--resolution", "x", "--json"
    )
    assert out.exit_code == 1 and "already has an open end proposal by alpha" in out.stderr


def test_a_rejection_wakes_the_proposer_and_says_why(desk: Desk) -> None:
    m = meeting_of(desk, "beta")
    propose(desk, m)
    out = desk.json(
        "meeting", "reject-end", str(m), "--role", "beta", "--reason", "nobody owns the fix"
    )
    assert out["state"] == "active"
    assert list(demanded(desk)) == [f"meeting:{m}:alpha:3"]
    prompt = prompt_of(tick(desk), "alpha")
    assert f"beta rejected your proposal to end meeting {m}" in prompt
    assert "nobody owns the fix" in prompt
    desk.json("meeting", "updates", str(m), "--role", "alpha", "--mark-read")
    assert demanded(desk) == {}
    # A fresh proposal after a rejection is allowed (and re-arms with a newer generation).
    propose(desk, m, resolution="roll back; beta owns the fix")
    assert list(demanded(desk)) == [f"meeting:{m}:beta:4"]


def test_an_ack_is_not_a_vote(desk: Desk) -> None:
    m = meeting_of(desk, "beta")
    propose(desk, m)
    out = tick(desk, execute=True)
    (attempt,) = [a for a in out["attempts"] if a["key"] == f"meeting:{m}:beta:2"]
    desk.ok("wake", "ack", str(attempt["attempt_id"]), "--note", "seen it")
    desk.ok("inbox", "ack", "--for", "beta", "--seen")
    desk.json("meeting", "updates", str(m), "--role", "beta", "--mark-read")
    desk.advance(minutes=1)
    later = tick(desk, execute=True)
    assert closures(later) == []  # still owed: the wake is held, not resolved
    assert [a["key"] for a in open_attempts(desk)] == [f"meeting:{m}:beta:2"]
    assert waiting(desk, m) == [("beta", "vote owed on ending (proposed by alpha)")]
    desk.ok("meeting", "confirm-end", str(m), "--role", "beta")
    desk.advance(minutes=1)
    assert closures(tick(desk, execute=True)) == [("withdrawn", "meeting paused or closed")]


def test_leaving_retallies_and_can_close_the_meeting(desk: Desk) -> None:
    m = meeting_of(desk, "beta", "gamma")
    propose(desk, m)
    desk.ok("meeting", "confirm-end", str(m), "--role", "beta")
    out = desk.json("meeting", "leave", str(m), "--role", "gamma", "--reason", "on call")
    assert out["state"] == "closed"


def test_a_paused_meeting_still_ends_by_the_handshake_and_wakes_voters(desk: Desk) -> None:
    m = meeting_of(desk, "beta")
    desk.ok("meeting", "pause", str(m), "--role", "alpha", "--reason", "waiting for data")
    assert demanded(desk) == {}
    propose(desk, m)
    assert list(demanded(desk)) == [f"meeting:{m}:beta:2"]  # the vote still wakes
    assert desk.json("meeting", "confirm-end", str(m), "--role", "beta")["state"] == "closed"


def test_a_closed_meeting_leaves_no_pending_attempt_and_no_alarm(desk: Desk) -> None:
    m = meeting_of(desk, "beta", "gamma", reply_sla="5m")
    desk.ok("meeting", "leave", str(m), "--role", "gamma", "--reason", "not needed")
    say(desk, m, "alpha", "Roll back?")
    desk.advance(minutes=5)
    out = tick(desk, execute=True)
    assert {a["key"] for a in out["attempts"]} == {"inbox:beta", f"owed_reply:{m}:beta"}
    propose(desk, m)
    tick(desk, execute=True)
    assert desk.json("meeting", "confirm-end", str(m), "--role", "beta")["state"] == "closed"
    # beta never read alpha's message: it stays unread in the ledger, overdue as history.
    desk.advance(minutes=30)
    out = tick(desk, execute=True)
    assert {c[0] for c in closures(out)} == {"withdrawn"}
    assert open_attempts(desk) == []
    assert status(desk, m)["owed"] == []
    states = {r["state"] for r in desk.json("ledger", "--for", "beta") if r["read_at"] is None}
    assert states == {"overdue"}
    # ... but closed is history, not an alarm: the board's gauges leave it out.
    board = desk.json("status")
    assert board["overdue_total"] == 0 and board["overdue"] == []
    (beta,) = [r for r in board["roles"] if r["role"] == "beta"]
    assert not beta.get("overdue")
    # ... and `deskd metrics` agrees with the board, by the same rule.
    assert 'deskd_items_overdue{role="beta"} 0.0' in desk.ok("metrics").stdout
    desk.advance(minutes=30)
    assert tick(desk, execute=True)["attempts"] == []


def test_a_rejection_in_a_budget_paused_meeting_still_reaches_the_proposer(desk: Desk) -> None:
    m = meeting_of(desk, "beta", max_messages=1, consensus_at=0)
    assert say(desk, m, "alpha", "B.")["state"] == "paused"
    propose(desk, m, resolution="B")
    desk.ok("meeting", "reject-end", str(m), "--role", "beta", "--reason", "C is cheaper")
    assert status(desk, m)["state"] == "paused"
    assert list(demanded(desk)) == [f"meeting:{m}:alpha:3"]
    propose(desk, m, resolution="C")  # acting again reads the rejection
    assert list(demanded(desk)) == [f"meeting:{m}:beta:4"]
    assert desk.json("meeting", "confirm-end", str(m), "--role", "beta")["state"] == "closed"
