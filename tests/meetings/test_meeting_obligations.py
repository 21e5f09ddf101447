"""Reply obligations: recorded, settled, stacked and waived; never a reason to refuse a
message (lessons 34, 35); an overdue one is `owed_reply` demand on a machine rung."""

from __future__ import annotations

from meeting_helpers import (
    call,
    check_in,
    closures,
    demanded,
    meeting_of,
    prompt_of,
    say,
    status,
    tick,
)

from conftest import Desk


def owed(desk: Desk, m: int) -> list[tuple[str, int, str]]:
    return [(o["debtor"], o["message_id"], o["creditor"]) for o in status(desk, m)["owed"]]


def test_a_message_between_two_makes_the_other_owe_a_reply(desk: Desk) -> None:
    m = meeting_of(desk, "beta", reply_sla="10m")
    out = say(desk, m, "alpha", "Is 118 the cause?", "--kind", "question")
    assert out["reply_owed_by"] == "beta" and out["owed_by_you"] == [] and out["warning"] is None
    assert owed(desk, m) == [("beta", out["message_id"], "alpha")]
    (why,) = [w["why"] for w in status(desk, m)["waiting_on"]]
    assert why == f"reply owed to alpha for message #{out['message_id']}, due 2026-12-01T14:10:00Z"


def test_an_overdue_reply_is_owed_reply_demand_on_a_machine_rung(desk: Desk) -> None:
    desk.ok(
        "status",
        "set",
        "--role",
        "beta",
        "--state",
        "resting",
        "--session-id",
        "5723d554-8b39-58c8-ad87-ce451ba2fd93",
    )
    m = meeting_of(desk, "beta", reply_sla="10m")
    first = say(desk, m, "alpha", "Is 118 the cause?")["message_id"]
    desk.ok("inbox", "ack", "--for", "beta", "--id", str(_item(desk, "beta")))  # read, not answered
    desk.advance(minutes=9)
    assert f"owed_reply:{m}:beta" not in demanded(desk)
    desk.advance(minutes=1)
    out = tick(desk, execute=True)
    (attempt,) = [a for a in out["attempts"] if a["key"] == f"owed_reply:{m}:beta"]
    assert attempt["rung"] == "resume" and attempt["reason"] == "owed_reply"
    prompt = prompt_of(out, "beta")
    assert f'to alpha: message #{first} "Is 118 the cause?"' in prompt
    assert f"--reply-to {first}" in prompt and f"Ref: meeting:{m}" in prompt


def _item(desk: Desk, role: str) -> int:
    (item,) = desk.json("inbox", "list", "--for", role)
    return int(item["id"])


def test_reply_to_settles_the_one_and_resolves_the_wake(desk: Desk) -> None:
    m = meeting_of(desk, "beta", reply_sla="10m")
    ask = say(desk, m, "alpha", "Is 118 the cause?")["message_id"]
    desk.advance(minutes=10)
    tick(desk, execute=True)
    answer = say(desk, m, "beta", "Yes: the pool size changed.", "--reply-to", str(ask))
    assert answer["settled"] == [ask] and answer["owed_by_you"] == []
    desk.advance(minutes=1)
    out = tick(desk, execute=True)
    assert ("resolved", "checked in, voted or replied") in closures(out)
    assert [a for a in desk.json("wake", "list", "--open") if a["reason"] == "owed_reply"] == []


def test_obligations_stack_and_one_answer_resolves_several(desk: Desk) -> None:
    m = meeting_of(desk, "beta", reply_sla="10m")
    a = say(desk, m, "alpha", "Is 118 the cause?")["message_id"]
    b = say(desk, m, "alpha", "And who owns the fix?")["message_id"]  # not refused: beta owes
    assert owed(desk, m) == [("beta", a, "alpha"), ("beta", b, "alpha")]
    desk.advance(minutes=10)
    (wake,) = [d for k, d in demanded(desk).items() if k == f"owed_reply:{m}:beta"]
    assert wake["role"] == "beta"
    prompt = prompt_of(tick(desk), "beta")
    assert "You owe 2 replies" in prompt and f"--resolves {a} {b}" in prompt
    partial = say(desk, m, "beta", "Yes, it is 118.", "--reply-to", str(a))
    assert partial["owed_by_you"] == [
        {"message_id": b, "to": "alpha", "due_at": "2026-12-01T14:10:00Z"}
    ]
    assert f"you still owe a reply to message {b}" in partial["warning"]
    full = say(desk, m, "beta", "I own the fix.", "--resolves", f"{a},{b}")
    assert full["settled"] == [b] and full["owed_by_you"] == []


def test_answering_with_a_question_still_owes_a_reply(desk: Desk) -> None:
    m = meeting_of(desk, "beta")
    ask = say(desk, m, "alpha", "Roll back?", "--kind", "question")["message_id"]
    back = say(desk, m, "beta", "Does 119 fix it?", "--kind", "question", "--reply-to", str(ask))
    assert back["settled"] == [ask] and back["reply_owed_by"] == "alpha"
    assert owed(desk, m) == [("alpha", back["message_id"], "beta")]


def test_debts_are_waived_when_a_third_attendee_checks_in(desk: Desk) -> None:
    m = call(desk, "beta", "gamma")
    check_in(desk, m, "beta")
    say(desk, m, "alpha", "before gamma arrives")
    assert [d for d, _, _ in owed(desk, m)] == ["beta"]
    check_in(desk, m, "gamma")
    assert owed(desk, m) == []
    say(desk, m, "alpha", "now three of us")
    assert owed(desk, m) == []


def test_leaving_waives_the_debts(desk: Desk) -> None:
    m = meeting_of(desk, "beta", reply_sla="10m")
    say(desk, m, "alpha", "Roll back?")
    desk.advance(minutes=10)
    tick(desk, execute=True)
    desk.ok("meeting", "leave", str(m), "--role", "beta", "--reason", "handing over")
    assert owed(desk, m) == []
    desk.advance(minutes=1)
    out = tick(desk, execute=True)
    assert ("resolved", "checked in, voted or replied") in closures(out)
    assert desk.json("wake", "list", "--open") == []


def test_unknown_reply_ids_are_refused_and_change_nothing(desk: Desk) -> None:
    m = meeting_of(desk, "beta")
    before = desk.dump()
    out = desk.run(
        "meeting", "send", str(m), "--role", "beta", "--body", "x", "--reply-to", "99", "--json"
    )
    assert out.exit_code == 1 and out.error()["code"] == "invalid_value"
    assert desk.dump() == before
