"""Calling a meeting, invitation wakes, quorum, and who may act (lessons 15, 16, 17)."""

from __future__ import annotations

from meeting_helpers import call, check_in, demanded, keys, prompt_of, say, tick

from conftest import Desk


def test_it_refuses_a_call_without_attendees(desk: Desk) -> None:
    missing = desk.run("meeting", "call", "--by", "alpha", "--agenda", "x")
    assert missing.exit_code == 2 and "--attendees" in missing.stderr
    only_self = desk.run(
        "meeting", "call", "--by", "alpha", "--agenda", "x", "--attendees", "alpha", "--json"
    )
    assert only_self.exit_code == 1 and only_self.error()["code"] == "invalid_value"
    unknown = desk.run("meeting", "call", "--by", "alpha", "--agenda", "x", "--attendees", "bet")
    assert unknown.exit_code == 1 and "unknown role 'bet'" in unknown.stderr
    assert desk.json("meeting", "list", "--all") == []


def test_it_invites_every_attendee_but_the_caller_and_waits_for_all(desk: Desk) -> None:
    m = call(desk, "beta", "gamma")
    assert set(demanded(desk)) == {f"meeting:{m}:beta:1", f"meeting:{m}:gamma:1"}
    assert desk.json("meeting", "status", str(m))["state"] == "waiting"
    assert check_in(desk, m, "beta") == {
        "meeting_id": m,
        "state": "waiting",
        "waiting_on": [{"role": "gamma", "why": "not checked in; invited 0s ago"}],
    }
    assert set(demanded(desk)) == {f"meeting:{m}:gamma:1"}
    assert check_in(desk, m, "gamma")["state"] == "active"
    assert demanded(desk) == {}


def test_the_invitation_wake_says_what_is_owed_and_where(desk: Desk) -> None:
    m = call(desk, "beta", agenda="rollback or fix forward?")
    out = tick(desk)
    prompt = prompt_of(out, "beta")
    assert f'alpha invites you to meeting {m} ("rollback or fix forward?")' in prompt
    assert f"deskd meeting check-in {m} --role beta" in prompt and f"Ref: meeting:{m}" in prompt
    (item,) = desk.json("inbox", "list", "--for", "beta")
    assert item["source"] == "meeting" and "alpha invites you" in item["title"]


def test_checking_in_reads_the_invitation_item(desk: Desk) -> None:
    m = call(desk, "beta")
    check_in(desk, m, "beta")
    assert desk.json("inbox", "list", "--for", "beta") == []


def test_calling_an_open_agenda_again_returns_the_same_meeting(desk: Desk) -> None:
    m = call(desk, "beta")
    again = desk.json(
        "meeting", "call", "--by", "gamma", "--agenda", "  Schema   V3 ", "--attendees", "beta"
    )
    assert again == {"meeting_id": m, "state": "waiting", "existing": True}
    desk.ok("meeting", "pause", str(m), "--role", "alpha", "--reason", "lunch")
    assert call(desk, "beta") == m  # paused is still open
    # Nobody else checked in: the caller's proposal alone calls it off.
    desk.ok("meeting", "propose-end", str(m), "--role", "alpha", "--resolution", "moot")
    assert desk.json("meeting", "status", str(m))["state"] == "closed"
    assert call(desk, "beta") != m


def test_an_urgent_meeting_skips_the_batch_and_starts_where_presence_allows(desk: Desk) -> None:
    desk.ok(
        "status",
        "set",
        "--role",
        "beta",
        "--state",
        "working",
        "--session-id",
        "5723d554-8b39-58c8-ad87-ce451ba2fd93",
    )
    desk.ok(
        "status",
        "set",
        "--role",
        "gamma",
        "--state",
        "resting",
        "--session-id",
        "16bc6247-46c6-5e28-9782-479007ab5b8a",
    )
    m = call(desk, "beta", "gamma", priority="urgent")
    assert [i["priority"] for i in desk.json("inbox", "list", "--for", "beta")] == ["urgent"]
    out = tick(desk, execute=True)
    rungs = {a["key"]: a["rung"] for a in out["attempts"]}
    assert rungs == {f"meeting:{m}:beta:1": "session", f"meeting:{m}:gamma:1": "resume"}
    assert out["pages"] == []  # a person only by climbing
    check_in(desk, m, "beta", "gamma")
    say(desk, m, "alpha", "p95 doubled")
    assert "inbox:beta" in demanded(desk)  # its items are urgent: no inbox batch


def test_a_normal_meeting_wakes_invitees_at_once_but_batches_its_messages(desk: Desk) -> None:
    m = call(desk, "beta")
    assert keys(tick(desk)) == [f"meeting:{m}:beta:1"]  # the invitation item raises no 2nd
    check_in(desk, m, "beta")
    say(desk, m, "alpha", "p95 doubled")
    assert demanded(desk) == {}
    desk.advance(minutes=3)
    assert list(demanded(desk)) == ["inbox:beta"]


def test_only_checked_in_attendees_speak(desk: Desk) -> None:
    m = call(desk, "beta", "gamma")
    out = desk.run("meeting", "send", str(m), "--role", "beta", "--body", "hi", "--json")
    assert out.exit_code == 1 and out.error()["code"] == "meeting_refused"
    assert "check-in" in out.error()["message"]
    outsider = call(desk, "beta", agenda="other")
    refused = desk.run("meeting", "send", str(outsider), "--role", "gamma", "--body", "hi")
    assert refused.exit_code == 1 and "not an attendee" in refused.stderr
    assert say(desk, m, "alpha", "the caller is checked in")["message_id"] == 1


def test_nobody_acts_for_another_role(desk: Desk) -> None:
    m = call(desk, "beta", "gamma")
    before = desk.dump()
    for args in (
        ("meeting", "check-in", str(m), "--role", "gamma"),
        ("meeting", "send", str(m), "--role", "alpha", "--body", "I am alpha"),
        ("meeting", "propose-end", str(m), "--role", "alpha", "--resolution", "done"),
        ("meeting", "leave", str(m), "--role", "gamma", "--reason", "x"),
        ("meeting", "call", "--by", "alpha", "--agenda", "y", "--attendees", "gamma"),
    ):
        out = desk.run(*args, "--json", role="beta")
        assert out.exit_code == 1 and out.error()["code"] == "not_your_role", args
    assert desk.dump() == before
    # Inside its own session the flag defaults to the role itself.
    assert desk.json("meeting", "check-in", str(m), role="beta")["waiting_on"][0]["role"] == (
        "gamma"
    )


def test_an_unknown_meeting_is_refused(desk: Desk) -> None:
    out = desk.run("meeting", "status", "42", "--json")
    assert out.exit_code == 1 and out.error()["code"] == "unknown_meeting"
    bad = desk.run("meeting", "status", "x1", "--json")
    assert bad.exit_code == 1 and bad.error()["code"] == "invalid_value"
