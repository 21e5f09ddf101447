"""Meeting messages: items in each recipient's ledger, duplicates refused with the original id
(normalized for case and whitespace, lesson 21), the stored body keeps its lines."""

from __future__ import annotations

from meeting_helpers import call, check_in, meeting_of, say

from conftest import Desk


def test_a_message_is_an_item_for_every_other_attendee(desk: Desk) -> None:
    m = meeting_of(desk, "beta", "gamma")
    said = say(desk, m, "alpha", "p95 doubled\nafter deploy 118")
    for role in ("beta", "gamma"):
        (item,) = desk.json("inbox", "list", "--for", role)
        assert item["source"] == "meeting" and "p95 doubled" in item["title"]
    assert desk.json("inbox", "list", "--for", "alpha") == []
    ledger = desk.json("ledger", "--for", "beta")
    states = {row["title"].split(": ", 1)[-1]: row["state"] for row in ledger}
    assert states["p95 doubled"] == "queued"  # the ledger shows it, unread
    (message,) = desk.json("meeting", "updates", str(m), "--role", "gamma")["messages"]
    assert message["message_id"] == said["message_id"] and message["from"] == "alpha"
    assert message["body"] == "p95 doubled\nafter deploy 118"


def test_a_duplicate_is_refused_with_the_original_message_id(desk: Desk) -> None:
    m = meeting_of(desk, "beta")
    original = say(desk, m, "alpha", "Roll back\n118 now.")["message_id"]
    before = desk.dump()
    out = desk.run(
        "meeting", "send", str(m), "--role", "alpha", "--body", "  roll BACK 118\tnow. ", "--json"
    )
    assert out.exit_code == 1 and out.error()["code"] == "duplicate_message"
    assert f"as message {original}" in out.error()["message"]
    after = desk.dump()
    if desk.backend == "postgresql":  # the refused INSERT drew an id: sequences never roll back
        before.pop("sequences"), after.pop("sequences")
    assert after == before  # refused: nothing changed, no budget spent
    with desk.db() as conn:
        (body,) = conn.execute("SELECT body FROM meeting_messages").fetchone()
    assert body == "Roll back\n118 now."


def test_the_same_body_from_another_sender_or_to_other_recipients_is_not_a_duplicate(
    desk: Desk,
) -> None:
    m = call(desk, "beta", "gamma")
    check_in(desk, m, "beta", "gamma")
    say(desk, m, "alpha", "agreed")
    say(desk, m, "beta", "agreed")
    desk.ok("meeting", "leave", str(m), "--role", "gamma", "--reason", "done here")
    say(desk, m, "alpha", "agreed")  # now only to beta


def test_updates_mark_read_reads_messages_and_events(desk: Desk) -> None:
    m = meeting_of(desk, "beta")
    say(desk, m, "alpha", "first")
    out = desk.json("meeting", "updates", str(m), "--role", "beta", "--mark-read")
    assert [x["body"] for x in out["messages"]] == ["first"] and out["events"]
    again = desk.json("meeting", "updates", str(m), "--role", "beta")
    assert again["messages"] == [] and again["events"] == []
    assert desk.json("inbox", "list", "--for", "beta") == []
    # Reading pays no debt.
    assert again["owed_by_you"][0]["creditor"] == "alpha"


def test_an_operator_peek_marks_nothing_but_the_role_itself_is_shown(desk: Desk) -> None:
    m = meeting_of(desk, "beta")
    say(desk, m, "alpha", "first")
    before = desk.dump()
    desk.json("meeting", "updates", str(m), "--role", "beta")
    assert desk.dump() == before
    desk.json("meeting", "updates", str(m), role="beta")
    assert desk.json("inbox", "ack", "--for", "beta", "--seen", role="beta") == {"acked": 1}
