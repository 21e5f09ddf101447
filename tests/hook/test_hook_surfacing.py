"""The session hook surfaces a role's own unread items once per session, urgent first."""

from __future__ import annotations

import json
import re

import pytest
from hook_helpers import SESSION, HookDesk, both_backends, fixture

from conftest import Desk

pytest_generate_tests = both_backends  # the heartbeat, surfacing and briefing on PostgreSQL too


@pytest.fixture
def hd(desk: Desk) -> HookDesk:
    return HookDesk(desk)


def ids_in(text: str) -> list[int]:
    return [int(m) for m in re.findall(r"^#(\d+) \[", text, flags=re.MULTILINE)]


@pytest.mark.parametrize(
    ("name", "event"),
    [
        ("post_tool_use", "PostToolUse"),
        ("post_tool_use_failure", "PostToolUseFailure"),
        ("user_prompt_submit", "UserPromptSubmit"),
    ],
)
def test_it_surfaces_unread_items_urgent_first(hd: HookDesk, name: str, event: str) -> None:
    low = hd.enqueue("alpha", "rotate logs", priority="low")
    urgent = hd.enqueue("alpha", "5xx above 2%", priority="urgent", ref="https://grafana/x")
    high = hd.enqueue("alpha", "disk 91%", priority="high", body="db-2\n/var is full")

    run = hd.hook(fixture(name))

    assert run.code == 0
    assert run.event() == event
    text = run.context()
    assert ids_in(text) == [urgent, high, low]
    assert f'#{urgent} [urgent] alert: "5xx above 2%"' in text
    assert 'ref: "https://grafana/x"' in text
    assert "   | db-2\n   | /var is full" in text  # the body keeps its line breaks, fenced
    assert "deskd inbox ack --for alpha --seen" in text
    assert "--id N" in text


def test_it_prints_exactly_one_json_document(hd: HookDesk) -> None:
    hd.enqueue("alpha", "disk 91%")
    run = hd.hook(fixture("post_tool_use"))
    assert run.stdout.count("\n") == 1
    assert list(json.loads(run.stdout)) == ["hookSpecificOutput"]


def test_it_marks_exactly_the_shown_items_notified_and_seen(hd: HookDesk) -> None:
    shown = hd.enqueue("alpha", "disk 91%")
    hd.hook(fixture("post_tool_use"))

    row = hd.item(shown)
    assert row["notified_at"] == hd.desk.now_ms
    assert row["seen_at"] == hd.desk.now_ms
    assert row["shown_session"] == SESSION
    assert row["read_at"] is None
    ledger = hd.desk.json("ledger", "--for", "alpha")
    assert [(e["item_id"], e["state"]) for e in ledger] == [(shown, "notified")]


def test_it_shows_the_senders_name_for_a_message(hd: HookDesk) -> None:
    hd.desk.json(
        "send", "--from", "beta", "--to", "alpha", "--subject", "root cause", "--body", "a\nb"
    )
    text = hd.hook(fixture("post_tool_use")).context()
    assert 'message from beta: "root cause"' in text
    assert "   | a\n   | b" in text


def test_it_never_shows_the_same_item_twice_in_a_session(hd: HookDesk) -> None:
    first = hd.enqueue("alpha", "disk 91%")
    assert ids_in(hd.hook(fixture("post_tool_use")).context()) == [first]

    again = hd.hook(fixture("post_tool_use"))
    assert again.code == 0
    assert again.stdout == ""

    hd.desk.advance(minutes=1)
    second = hd.enqueue("alpha", "disk 95%", priority="urgent")
    assert ids_in(hd.hook(fixture("user_prompt_submit")).context()) == [second]
    assert hd.item(first)["seen_at"] != hd.item(second)["seen_at"]


def test_it_shows_unread_items_again_to_a_new_session(hd: HookDesk) -> None:
    item = hd.enqueue("alpha", "disk 91%")
    hd.hook(fixture("post_tool_use"))
    text = hd.hook(fixture("post_tool_use", session_id="another-session")).context()
    assert ids_in(text) == [item]
    assert hd.item(item)["shown_session"] == "another-session"


def test_it_never_shows_another_roles_items(hd: HookDesk) -> None:
    mine = hd.enqueue("alpha", "for alpha")
    theirs = hd.enqueue("beta", "for beta", priority="urgent")

    text = hd.hook(fixture("post_tool_use")).context()

    assert ids_in(text) == [mine]
    assert "for beta" not in text
    untouched = hd.item(theirs)
    assert (untouched["notified_at"], untouched["seen_at"], untouched["shown_session"]) == (
        None,
        None,
        None,
    )


def test_it_prints_nothing_when_only_another_role_has_items(hd: HookDesk) -> None:
    hd.enqueue("beta", "for beta")
    run = hd.hook(fixture("post_tool_use"))
    assert (run.code, run.stdout) == (0, "")
    assert hd.sessions()[0]["heartbeats"] == 1


def test_it_surfaces_nothing_to_a_subagent(hd: HookDesk) -> None:
    item = hd.enqueue("alpha", "disk 91%", priority="urgent")

    run = hd.hook(fixture("subagent_post_tool_use"))

    assert (run.code, run.stdout) == (0, "")
    assert hd.item(item)["seen_at"] is None
    (session,) = hd.sessions()
    assert (session["heartbeats"], session["last_tool"]) == (1, "Grep")
    # The role's own next call still gets it.
    assert ids_in(hd.hook(fixture("post_tool_use")).context()) == [item]


def test_it_cuts_at_10000_characters_and_acks_only_what_it_showed(hd: HookDesk) -> None:
    body = "x" * 900
    ids = {
        p: [hd.enqueue("alpha", f"{p} {n}", priority=p, body=body) for n in range(6)]
        for p in ("low", "normal", "high", "urgent")
    }

    text = hd.hook(fixture("post_tool_use")).context()

    assert len(text) <= 10_000
    shown = ids_in(text)
    assert 0 < len(shown) < 24
    assert shown[:6] == ids["urgent"]  # urgent first, though they have the highest ids
    assert shown == sorted(shown, key=lambda i: -hd.item(i)["priority"])
    assert f"+{24 - len(shown)} more: deskd inbox list --for alpha" in text
    assert hd.shown_ids() == sorted(shown)

    acked = hd.desk.json("inbox", "ack", "--seen", role="alpha")
    assert acked == {"acked": len(shown)}
    unread = [e["id"] for e in hd.desk.json("inbox", "list", "--for", "alpha")]
    assert sorted(unread) == sorted({i for group in ids.values() for i in group} - set(shown))


def test_the_next_call_shows_what_the_cut_left_out(hd: HookDesk) -> None:
    for n in range(24):
        hd.enqueue("alpha", f"item {n}", body="y" * 900)

    first = ids_in(hd.hook(fixture("post_tool_use")).context())
    second = ids_in(hd.hook(fixture("post_tool_use")).context())

    assert first and second
    assert not set(first) & set(second)
    assert sorted(first + second) == hd.shown_ids()
