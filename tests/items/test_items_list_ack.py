"""`inbox list` and `inbox ack`: a role's own list marks items seen, an operator's is a peek;
`ack --seen` acks exactly what was seen (never a time or id watermark, lesson 18),
`ack --id` exactly the ids named."""

from __future__ import annotations

import pytest
from items_helpers import enqueue, item_row, unread_ids

from conftest import Desk


def _seen(desk: Desk, role: str = "alpha") -> list[int]:
    conn = desk.db()
    try:
        rows = conn.execute(
            "SELECT id FROM items WHERE role = ? AND seen_at IS NOT NULL ORDER BY id", (role,)
        )
        return [int(r[0]) for r in rows]
    finally:
        conn.close()


def test_it_lists_json_with_the_contract_keys(desk: Desk) -> None:
    enqueue(desk, priority="high")
    (item,) = desk.json("inbox", "list", "--for", "alpha")
    assert {"id", "source", "priority", "title", "state", "enqueued_at"} <= set(item)
    assert (item["id"], item["source"], item["priority"], item["state"]) == (
        1,
        "alert",
        "high",
        "queued",
    )
    assert item["enqueued_at"] == "2026-12-01T14:00:00Z"


def test_it_lists_only_unread_items_unless_asked_for_all(desk: Desk) -> None:
    enqueue(desk, "a")
    enqueue(desk, "b")
    desk.ok("inbox", "ack", "--for", "alpha", "--id", "1")
    assert [i["id"] for i in desk.json("inbox", "list", "--for", "alpha")] == [2]
    everything = desk.json("inbox", "list", "--for", "alpha", "--all")
    assert [(i["id"], i["state"]) for i in everything] == [(2, "queued"), (1, "read")]


def test_it_lists_only_the_roles_own_items(desk: Desk) -> None:
    enqueue(desk, "for alpha")
    enqueue(desk, "for beta", to="beta")
    assert [i["title"] for i in desk.json("inbox", "list", "--for", "beta")] == ["for beta"]


def test_it_marks_items_seen_when_the_role_lists_its_own_inbox(desk: Desk) -> None:
    enqueue(desk, "a")
    enqueue(desk, "b", to="beta")
    desk.advance(minutes=2)
    listed = desk.json("inbox", "list", role="alpha")  # --for defaults to DESKD_ROLE
    assert [i["id"] for i in listed] == [1]
    assert _seen(desk) == [1]
    assert item_row(desk, 1)["seen_at"] == desk.now_ms
    assert item_row(desk, 1)["read_at"] is None  # listing is not reading (lesson 19)
    assert _seen(desk, "beta") == []


def test_it_keeps_the_first_seen_time(desk: Desk) -> None:
    enqueue(desk)
    desk.ok("inbox", "list", role="alpha")
    first = desk.now_ms
    desk.advance(minutes=5)
    desk.ok("inbox", "list", role="alpha")
    assert item_row(desk, 1)["seen_at"] == first


def test_it_treats_an_operators_list_as_a_peek(desk: Desk) -> None:
    enqueue(desk)
    before = desk.dump()
    desk.ok("inbox", "list", "--for", "alpha")
    desk.ok("inbox", "list", "--for", "alpha", "--all", "--json")
    assert desk.dump() == before
    assert desk.json("inbox", "ack", "--for", "alpha", "--seen") == {"acked": 0}
    assert unread_ids(desk) == [1]


def test_it_marks_seen_only_what_a_limited_list_showed(desk: Desk) -> None:
    enqueue(desk, "low", priority="low")
    enqueue(desk, "urgent", priority="urgent")
    enqueue(desk, "normal")
    assert [i["id"] for i in desk.json("inbox", "list", "--limit", "2", role="alpha")] == [2, 3]
    assert _seen(desk) == [2, 3]


# -- ack --seen ----------------------------------------------------------------------------


def test_it_acks_exactly_the_seen_items_when_seen_is_not_a_prefix_of_ids(desk: Desk) -> None:
    # All in the same millisecond; the urgent one (highest id) is the one shown.
    enqueue(desk, "low", priority="low")
    enqueue(desk, "normal")
    enqueue(desk, "urgent", priority="urgent")
    desk.ok("inbox", "list", "--limit", "1", role="alpha")
    assert desk.json("inbox", "ack", "--seen", role="alpha") == {"acked": 1}
    assert unread_ids(desk) == [1, 2]
    row = item_row(desk, 3)
    assert (row["read_at"], row["read_by"]) == (desk.now_ms, "alpha")


def test_it_does_not_ack_items_enqueued_after_the_list_in_the_same_millisecond(
    desk: Desk,
) -> None:
    enqueue(desk, "shown 1")
    enqueue(desk, "shown 2")
    desk.ok("inbox", "list", role="alpha")
    enqueue(desk, "arrived after the list")  # same pinned instant as the list
    enqueue(desk, "urgent, after", priority="urgent")
    assert desk.json("inbox", "ack", "--seen", role="alpha") == {"acked": 2}
    assert unread_ids(desk) == [3, 4]


def test_it_lets_the_operator_ack_what_the_role_has_seen(desk: Desk) -> None:
    enqueue(desk, "a")
    desk.ok("inbox", "list", role="alpha")
    enqueue(desk, "b")
    assert desk.json("inbox", "ack", "--for", "alpha", "--seen") == {"acked": 1}
    assert item_row(desk, 1)["read_by"] == "operator"
    assert unread_ids(desk) == [2]


def test_it_acks_only_the_roles_own_seen_items(desk: Desk) -> None:
    enqueue(desk, "a")
    enqueue(desk, "b", to="beta")
    desk.ok("inbox", "list", role="alpha")
    desk.ok("inbox", "list", role="beta")
    assert desk.json("inbox", "ack", "--seen", role="alpha") == {"acked": 1}
    assert unread_ids(desk, "beta") == [2]


def test_it_acks_nothing_twice(desk: Desk) -> None:
    enqueue(desk)
    desk.ok("inbox", "list", role="alpha")
    assert desk.json("inbox", "ack", "--seen", role="alpha") == {"acked": 1}
    first = item_row(desk, 1)["read_at"]
    desk.advance(minutes=1)
    assert desk.json("inbox", "ack", "--seen", role="alpha") == {"acked": 0}
    assert desk.json("inbox", "ack", "--id", "1", role="alpha") == {"acked": 0}
    assert item_row(desk, 1)["read_at"] == first


# -- ack --id ------------------------------------------------------------------------------


@pytest.mark.parametrize("ids", [("--id", "1", "--id", "3"), ("--id", "1,3"), ("--id", "3, 1")])
def test_it_acks_exactly_the_ids_given(desk: Desk, ids: tuple[str, ...]) -> None:
    for title in "abcd":
        enqueue(desk, title)
    assert desk.json("inbox", "ack", "--for", "alpha", *ids) == {"acked": 2}
    assert unread_ids(desk) == [2, 4]


def test_it_acks_an_unseen_item_by_id(desk: Desk) -> None:
    enqueue(desk)
    assert desk.json("inbox", "ack", "--id", "1", role="alpha") == {"acked": 1}
    assert item_row(desk, 1)["seen_at"] is None
    assert item_row(desk, 1)["read_by"] == "alpha"


@pytest.mark.parametrize("ids", [["4"], ["1", "4"], ["99"], ["1", "99"]])
def test_it_refuses_ids_of_another_role_or_unknown_and_acks_nothing(
    desk: Desk, ids: list[str]
) -> None:
    enqueue(desk, "a")
    enqueue(desk, "b")
    enqueue(desk, "c")
    enqueue(desk, "for beta", to="beta")  # id 4
    before = desk.dump()
    args = [a for i in ids for a in ("--id", i)]
    out = desk.run("inbox", "ack", "--for", "alpha", *args)
    assert out.exit_code == 1
    bad = [i for i in ids if i not in ("1",)]
    assert out.stderr.startswith(f"deskd: no item {', '.join(bad)} addressed to 'alpha'")
    assert desk.dump() == before


@pytest.mark.parametrize(
    "args", [(), ("--id", "1", "--seen"), ("--id", ""), ("--id", "abc"), ("--id", "-1")]
)
def test_it_refuses_ack_without_exactly_one_of_id_or_seen(
    desk: Desk, args: tuple[str, ...]
) -> None:
    enqueue(desk)
    desk.ok("inbox", "list", role="alpha")
    before = desk.dump()
    out = desk.run("inbox", "ack", "--for", "alpha", *args)
    assert out.exit_code == 1, (out.exit_code, out.stderr)
    assert out.stderr.startswith("deskd: ") and out.stderr.count("\n") == 1
    assert desk.dump() == before
    if not args or "--seen" in args:
        assert "--id" in out.stderr and "--seen" in out.stderr


@pytest.mark.parametrize("big", ["99999999999999999999", "9223372036854775808"])
def test_it_refuses_an_id_beyond_sqlites_range_naming_the_range(desk: Desk, big: str) -> None:
    enqueue(desk)
    before = desk.dump()
    out = desk.run("inbox", "ack", "--for", "alpha", "--id", "1", "--id", big, "--json")
    assert out.exit_code == 1
    assert out.error()["code"] == "invalid_value"
    message = out.error()["message"]
    assert big in message and "--id" in message and "9223372036854775807" in message
    assert desk.dump() == before
