"""`deskd inbox enqueue`: validation, dedup until ack, priorities and SLA defaults."""

from __future__ import annotations

import pytest
from items_helpers import enqueue, iso, item_row, ledger_by_id, unread_ids

from conftest import Desk

MINUTE_MS = 60_000


def test_it_answers_with_id_and_deduped(desk: Desk) -> None:
    assert enqueue(desk) == {"id": 1, "deduped": False}
    assert enqueue(desk, "other") == {"id": 2, "deduped": False}


def test_it_stores_what_was_written(desk: Desk) -> None:
    body = "first line\n\n| host | disk |\n|------|------|\n| db-2 | 91%  |\n\ttabbed  \n"
    enqueue(desk, "disk  91% — db-2", body=body, priority="high")
    row = item_row(desk, 1)
    assert (row["title"], row["body"], row["source"], row["role"]) == (
        "disk  91% — db-2",
        body,
        "alert",
        "alpha",
    )
    assert row["enqueued_at"] == desk.now_ms


@pytest.mark.parametrize("source", ["alert", "signal"])
def test_it_accepts_the_desks_inbox_sources(desk: Desk, source: str) -> None:
    assert enqueue(desk, source=source)["id"] == 1


@pytest.mark.parametrize("source", ["system", "message", "meeting", "supervisor"])
def test_it_refuses_deskds_own_sources(desk: Desk, source: str) -> None:
    out = desk.run("inbox", "enqueue", "--for", "alpha", "--source", source, "--title", "x")
    assert out.exit_code == 1
    assert out.stderr.startswith(f"deskd: source {source!r} is reserved")
    assert "alert, signal" in out.stderr
    assert desk.dump() == {}


def test_it_refuses_a_source_the_desk_does_not_list(desk: Desk) -> None:
    out = desk.run("inbox", "enqueue", "--for", "alpha", "--source", "alrt", "--title", "x")
    assert out.exit_code == 1
    assert out.stderr.startswith("deskd: unknown source 'alrt' (sources: alert, signal")


def test_it_refuses_an_unknown_role_naming_the_roles(desk: Desk) -> None:
    out = desk.run("inbox", "enqueue", "--for", "reseacher", "--source", "alert", "--title", "x")
    assert out.exit_code == 1
    assert out.stderr == "deskd: unknown role 'reseacher' (roles: alpha, beta, gamma)\n"


def test_it_refuses_an_unknown_priority_as_a_refusal_not_a_usage_error(desk: Desk) -> None:
    out = desk.run(
        "inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x",
        "--priority", "critical",
    )  # fmt: skip
    assert out.exit_code == 1
    assert "low, normal, high, urgent" in out.stderr


# -- dedup ---------------------------------------------------------------------------------


def test_it_coalesces_an_unread_item_with_the_same_key(desk: Desk) -> None:
    first = enqueue(desk, key="disk-db2")
    desk.advance(minutes=1)
    again = enqueue(desk, "disk 93%", key="disk-db2")
    assert again == {"id": first["id"], "deduped": True}
    assert unread_ids(desk) == [first["id"]]
    row = item_row(desk, first["id"])
    assert row["title"] == "disk 91%"  # the live item keeps what was written first
    assert row["enqueued_at"] == desk.now_ms - MINUTE_MS


def test_it_coalesces_a_seen_but_unread_item(desk: Desk) -> None:
    enqueue(desk, key="k")
    desk.ok("inbox", "list", role="alpha")  # seen, not read
    assert enqueue(desk, key="k") == {"id": 1, "deduped": True}


def test_it_raises_the_priority_of_the_live_item_and_never_lowers_it(desk: Desk) -> None:
    enqueue(desk, key="k", priority="normal")
    enqueue(desk, key="k", priority="urgent")
    assert item_row(desk, 1)["priority"] == 3
    enqueue(desk, key="k", priority="low")
    enqueue(desk, key="k", priority="high")
    assert item_row(desk, 1)["priority"] == 3
    assert [i["priority"] for i in desk.json("inbox", "list", "--for", "alpha")] == ["urgent"]


def test_it_keeps_the_earlier_sla_due_when_coalescing(desk: Desk) -> None:
    start = desk.now_ms
    enqueue(desk, key="k")  # normal: due in 30 min
    desk.advance(minutes=10)
    enqueue(desk, key="k", priority="urgent")  # due 5 min from now: earlier
    assert item_row(desk, 1)["sla_due_at"] == start + 15 * MINUTE_MS
    desk.advance(minutes=1)
    enqueue(desk, key="k", priority="low")  # due in 4 h: later, ignored
    enqueue(desk, key="k", sla="1d")
    assert item_row(desk, 1)["sla_due_at"] == start + 15 * MINUTE_MS


def test_it_creates_a_new_item_for_the_key_after_an_ack(desk: Desk) -> None:
    enqueue(desk, key="k")
    desk.ok("inbox", "ack", "--for", "alpha", "--id", "1")
    assert enqueue(desk, key="k") == {"id": 2, "deduped": False}
    assert enqueue(desk, key="k") == {"id": 2, "deduped": True}
    assert unread_ids(desk) == [2]


def test_it_dedups_per_role_and_per_key(desk: Desk) -> None:
    assert enqueue(desk, key="k")["id"] == 1
    assert enqueue(desk, key="k", to="beta") == {"id": 2, "deduped": False}
    assert enqueue(desk, key="j") == {"id": 3, "deduped": False}
    assert enqueue(desk) == {"id": 4, "deduped": False}  # no key: never coalesces
    assert enqueue(desk) == {"id": 5, "deduped": False}


# -- priorities and SLAs -------------------------------------------------------------------


def test_it_lists_urgent_first_then_oldest(desk: Desk) -> None:
    for priority in ("low", "normal", "urgent", "high", "normal", "urgent"):
        enqueue(desk, priority, priority=priority)
        desk.advance(minutes=1)
    enqueue(desk, "same-ms-a", priority="high")
    enqueue(desk, "same-ms-b", priority="high")
    listed = desk.json("inbox", "list", "--for", "alpha")
    assert [i["id"] for i in listed] == [3, 6, 4, 7, 8, 2, 5, 1]
    assert [i["priority"] for i in listed][:2] == ["urgent", "urgent"]


@pytest.mark.parametrize(
    ("priority", "minutes"), [("urgent", 5), ("high", 15), ("normal", 30), ("low", 240)]
)
def test_it_gives_each_priority_its_default_sla(desk: Desk, priority: str, minutes: int) -> None:
    enqueue(desk, priority=priority)
    assert item_row(desk, 1)["sla_due_at"] == desk.now_ms + minutes * MINUTE_MS


def test_it_defaults_to_normal_priority(desk: Desk) -> None:
    enqueue(desk)
    row = item_row(desk, 1)
    assert row["priority"] == 1
    assert row["sla_due_at"] == desk.now_ms + 30 * MINUTE_MS


@pytest.mark.parametrize(
    ("sla", "seconds"),
    [("90s", 90), ("5m", 300), ("2h", 7200), ("1d", 86400), ("120", 120), ("45M", 2700)],
)
def test_it_takes_an_sla_override(desk: Desk, sla: str, seconds: int) -> None:
    enqueue(desk, priority="urgent", sla=sla)
    assert item_row(desk, 1)["sla_due_at"] == desk.now_ms + seconds * 1000
    entry = ledger_by_id(desk)[1]
    assert entry["sla_due_at"] == iso(desk.now_ms + seconds * 1000)


@pytest.mark.parametrize("sla", ["abc", "5x", "0", "0s", "-5m", "1.5h", "5 minutes", "m"])
def test_it_refuses_a_bad_sla_with_exit_1(desk: Desk, sla: str) -> None:
    out = desk.run(
        "inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x", "--sla", sla
    )
    assert out.exit_code == 1, out.stderr
    assert out.stderr.startswith("deskd: invalid SLA")
    assert desk.dump() == {}
