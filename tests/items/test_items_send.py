"""`deskd send`: one item per recipient sharing a message_id, source `message`, the body
stored exactly as written (lesson 21)."""

from __future__ import annotations

from items_helpers import item_row

from conftest import Desk

BODY = (
    "Root cause:\n"
    "\n"
    "| host | disk |\n"
    "|------|------|\n"
    "| db-2 | 91%  |\n"
    "\tindented line with trailing spaces   \n"
    "windows line\r\n"
    "ünïcödé — done\n"
)


def test_it_makes_one_item_per_recipient_sharing_a_message_id(desk: Desk) -> None:
    out = desk.json(
        "send", "--from", "alpha", "--to", "beta", "--to", "gamma",
        "--subject", "root cause", "--body", BODY, "--priority", "high",
    )  # fmt: skip
    assert set(out) >= {"message_id", "items"}
    assert out["items"] == [{"id": 1, "to": "beta"}, {"id": 2, "to": "gamma"}]
    rows = [item_row(desk, 1), item_row(desk, 2)]
    assert {r["message_id"] for r in rows} == {out["message_id"]}
    for row, to in zip(rows, ["beta", "gamma"], strict=True):
        assert row["role"] == to
        assert (row["source"], row["sender"], row["title"]) == ("message", "alpha", "root cause")
        assert row["body"] == BODY
        assert row["priority"] == 2
        assert row["sla_due_at"] == desk.now_ms + 15 * 60_000


def test_it_makes_distinct_message_ids_per_send(desk: Desk) -> None:
    a = desk.json("send", "--from", "alpha", "--to", "beta", "--subject", "s", "--body", "b")
    b = desk.json("send", "--from", "alpha", "--to", "beta", "--subject", "s", "--body", "b")
    assert a["message_id"] != b["message_id"]
    assert [i["id"] for i in desk.json("inbox", "list", "--for", "beta")] == [1, 2]


def test_it_sends_once_to_a_recipient_named_twice(desk: Desk) -> None:
    out = desk.json(
        "send", "--from", "alpha", "--to", "beta", "--to", "beta", "--subject", "s", "--body", "b"
    )
    assert out["items"] == [{"id": 1, "to": "beta"}]


def test_it_sends_from_the_calling_role_by_default(desk: Desk) -> None:
    out = desk.json("send", "--to", "beta", "--subject", "s", "--body", "b", role="gamma")
    assert item_row(desk, out["items"][0]["id"])["sender"] == "gamma"


def test_it_takes_an_sla_override(desk: Desk) -> None:
    desk.ok(
        "send", "--from", "alpha", "--to", "beta", "--subject", "s", "--body", "b", "--sla", "2h"
    )
    assert item_row(desk, 1)["sla_due_at"] == desk.now_ms + 2 * 3600_000


def test_it_refuses_an_unknown_recipient_and_writes_nothing(desk: Desk) -> None:
    desk.ok("send", "--from", "alpha", "--to", "beta", "--subject", "first", "--body", "b")
    before = desk.dump()
    out = desk.run(
        "send", "--from", "alpha", "--to", "beta", "--to", "reseacher", "--subject", "s",
        "--body", "b",
    )  # fmt: skip
    assert out.exit_code == 1
    assert out.stderr == "deskd: unknown role 'reseacher' (roles: alpha, beta, gamma)\n"
    assert desk.dump() == before


def test_it_refuses_a_disabled_recipient(desk: Desk) -> None:
    desk.write_desk(
        '[desk]\ntimezone = "America/New_York"\n'
        '[[roles]]\nname = "alpha"\n[[roles]]\nname = "beta"\nenabled = false\n'
    )
    out = desk.run(
        "send", "--from", "alpha", "--to", "beta", "--subject", "s", "--body", "b", "--json"
    )
    assert out.exit_code == 1
    assert out.error()["code"] == "role_disabled"


def test_it_refuses_a_message_to_oneself(desk: Desk) -> None:
    out = desk.run("send", "--to", "alpha", "--subject", "s", "--body", "b", role="alpha")
    assert out.exit_code == 1
    assert desk.dump() == {}


def test_the_sender_among_recipients_is_skipped_and_told(desk: Desk) -> None:
    out = desk.json(
        "send", "--to", "alpha", "--to", "beta", "--subject", "standup", "--body", "10:00",
        role="alpha",
    )  # fmt: skip
    assert [i["to"] for i in out["items"]] == ["beta"]
    assert out["skipped"] == [{"to": "alpha", "why": "the sender"}]
    text = desk.ok(
        "send", "--from", "alpha", "--to", "alpha", "--to", "gamma", "--subject", "s", "--body", "b"
    ).stdout
    assert text.rstrip().endswith("— not to alpha: the sender")
    alone = desk.run("send", "--to", "alpha", "--subject", "s", "--body", "b", role="alpha")
    assert alone.exit_code == 1 and "cannot send a message to itself" in alone.stderr
