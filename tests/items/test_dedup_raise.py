"""A coalesced item raised to a higher priority is news again; disabled roles take no items."""

from __future__ import annotations

from conftest import DESK_TOML, Desk


def enqueue(desk: Desk, priority: str) -> dict[str, object]:
    return desk.json(
        "inbox",
        "enqueue",
        "--for",
        "alpha",
        "--source",
        "alert",
        "--title",
        "disk",
        "--dedup-key",
        "disk",
        "--priority",
        priority,
    )


def test_raising_a_seen_items_priority_makes_it_unseen_again(desk: Desk) -> None:
    enqueue(desk, "normal")
    desk.json("inbox", "list", role="alpha")  # seen by the role itself
    assert enqueue(desk, "normal")["deduped"] is True
    assert desk.json("inbox", "ack", "--seen", role="alpha") == {"acked": 1}
    enqueue(desk, "low")
    desk.json("inbox", "list", role="alpha")
    assert enqueue(desk, "urgent")["deduped"] is True
    assert desk.json("inbox", "ack", "--seen", role="alpha") == {"acked": 0}
    (item,) = desk.json("inbox", "list", "--for", "alpha")
    assert item["priority"] == "urgent"


def test_a_blank_dedup_key_is_no_key(desk: Desk) -> None:
    a = desk.json(
        "inbox",
        "enqueue",
        "--for",
        "alpha",
        "--source",
        "alert",
        "--title",
        "a",
        "--dedup-key",
        "  ",
    )
    b = desk.json(
        "inbox",
        "enqueue",
        "--for",
        "alpha",
        "--source",
        "alert",
        "--title",
        "b",
        "--dedup-key",
        "  ",
    )
    assert a["id"] != b["id"] and not b["deduped"]


def test_a_disabled_role_takes_no_items(desk: Desk) -> None:
    desk.write_desk(DESK_TOML.replace('name = "gamma"', 'name = "gamma"\nenabled = false'))
    out = desk.run("inbox", "enqueue", "--for", "gamma", "--source", "alert", "--title", "x")
    assert out.exit_code == 1 and "disabled" in out.stderr
