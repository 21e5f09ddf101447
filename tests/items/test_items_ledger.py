"""`deskd ledger`: per (item, recipient) states derived at read time, with the contract's
precedence read > overdue > notified > queued, moved by the pinned clock."""

from __future__ import annotations

import pytest
from items_helpers import enqueue, iso, ledger_by_id

from conftest import Desk
from deskd.store.db import connect, transaction
from deskd.store.items import insert_item, mark_shown

MINUTE_MS = 60_000


def _surface(desk: Desk, *ids: int, session: str = "sess-1") -> None:
    """What the session hook does when it shows items to a running turn."""
    conn = connect(desk.db_target)
    try:
        with transaction(conn):
            mark_shown(conn, list(ids), session=session, now=desk.now_ms)
    finally:
        conn.close()


def test_it_shows_the_contract_keys(desk: Desk) -> None:
    enqueue(desk)
    (entry,) = desk.json("ledger")
    assert {
        "item_id", "to", "state", "queued_at", "notified_at", "read_at", "sla_due_at"
    } <= set(entry)  # fmt: skip
    assert entry["item_id"] == 1 and entry["to"] == "alpha" and entry["state"] == "queued"
    assert entry["queued_at"] == "2026-12-01T14:00:00Z"
    assert entry["sla_due_at"] == "2026-12-01T14:30:00Z"
    assert entry["notified_at"] is None and entry["read_at"] is None


def test_it_moves_queued_notified_overdue_read_with_the_clock(desk: Desk) -> None:
    start = desk.now_ms
    enqueue(desk)  # normal: due at +30 min
    assert ledger_by_id(desk)[1]["state"] == "queued"

    desk.advance(minutes=1)
    _surface(desk, 1)
    entry = ledger_by_id(desk)[1]
    assert (entry["state"], entry["notified_at"]) == ("notified", iso(start + MINUTE_MS))

    desk.advance(minutes=28, seconds=59)
    assert ledger_by_id(desk)[1]["state"] == "notified"  # one second before the SLA
    desk.advance(seconds=2)
    assert ledger_by_id(desk)[1]["state"] == "overdue"  # overdue beats notified

    desk.advance(minutes=10)
    desk.ok("inbox", "ack", "--for", "alpha", "--id", "1")
    entry = ledger_by_id(desk)[1]
    assert (entry["state"], entry["read_at"]) == ("read", iso(desk.now_ms))  # read beats overdue
    desk.advance(days=3)
    assert ledger_by_id(desk)[1]["state"] == "read"


def test_it_marks_an_unnoticed_item_overdue_past_its_sla(desk: Desk) -> None:
    enqueue(desk, priority="urgent")
    desk.advance(minutes=4, seconds=59)
    assert ledger_by_id(desk)[1]["state"] == "queued"
    desk.advance(seconds=2)
    assert ledger_by_id(desk)[1]["state"] == "overdue"


def test_it_keeps_an_item_read_before_its_sla_read(desk: Desk) -> None:
    enqueue(desk)
    desk.ok("inbox", "ack", "--for", "alpha", "--id", "1")
    desk.advance(hours=5)
    assert ledger_by_id(desk)[1]["state"] == "read"


def test_it_filters_by_state_and_role(desk: Desk) -> None:
    enqueue(desk, "urgent", priority="urgent")  # 1: overdue after 5 min
    enqueue(desk, "low", priority="low")  # 2: still queued
    enqueue(desk, "beta urgent", to="beta", priority="urgent")  # 3: overdue
    enqueue(desk, "notified", priority="low")  # 4: notified
    enqueue(desk, "read", priority="urgent")  # 5: read
    _surface(desk, 4)
    desk.ok("inbox", "ack", "--for", "alpha", "--id", "5")
    desk.advance(minutes=6)
    states = {i: e["state"] for i, e in ledger_by_id(desk).items()}
    assert states == {1: "overdue", 2: "queued", 3: "overdue", 4: "notified", 5: "read"}
    assert list(ledger_by_id(desk, "--state", "overdue")) == [3, 1]  # newest first
    assert list(ledger_by_id(desk, "--state", "overdue", "--for", "alpha")) == [1]
    assert list(ledger_by_id(desk, "--state", "queued")) == [2]
    assert list(ledger_by_id(desk, "--state", "notified")) == [4]
    assert list(ledger_by_id(desk, "--state", "read")) == [5]
    assert list(ledger_by_id(desk, "--for", "beta")) == [3]
    assert desk.json("ledger", "--state", "escalated") == []


def test_it_lists_one_entry_per_recipient_of_a_message(desk: Desk) -> None:
    desk.ok(
        "send", "--from", "alpha", "--to", "beta", "--to", "gamma", "--subject", "s", "--body", "b"
    )
    desk.ok("inbox", "list", role="beta")
    desk.ok("inbox", "ack", "--seen", role="beta")
    entries = desk.json("ledger")
    assert sorted((e["to"], e["state"]) for e in entries) == [("beta", "read"), ("gamma", "queued")]


@pytest.mark.parametrize("state", ["overdu", "READ", "delivered"])
def test_it_refuses_an_unknown_state_naming_the_states(desk: Desk, state: str) -> None:
    enqueue(desk)
    out = desk.run("ledger", "--state", state)
    assert out.exit_code == 1
    for name in ("queued", "notified", "read", "escalated", "overdue"):
        assert name in out.stderr


def test_it_refuses_an_unknown_role(desk: Desk) -> None:
    out = desk.run("ledger", "--for", "reseacher")
    assert out.exit_code == 1
    assert out.stderr == "deskd: unknown role 'reseacher' (roles: alpha, beta, gamma)\n"


def test_it_finds_an_old_overdue_item_behind_thousands_of_newer_ones(desk: Desk) -> None:
    enqueue(desk, "old and overdue", priority="urgent")
    desk.advance(hours=1)
    conn = connect(desk.db_target)
    try:
        with transaction(conn):
            for n in range(5100):
                insert_item(
                    conn, role="alpha", source="alert", priority=1, title=f"fresh {n}", body="",
                    ref=None, dedup_key=None, now=desk.now_ms, sla_due_at=desk.now_ms + 1800_000,
                )  # fmt: skip
    finally:
        conn.close()
    assert [e["item_id"] for e in desk.json("ledger", "--state", "overdue")] == [1]
    assert [e["item_id"] for e in desk.json("ledger", "--state", "overdue", "--limit", "1")] == [1]
    queued = desk.json("ledger", "--state", "queued", "--limit", "3")
    assert [e["item_id"] for e in queued] == [5101, 5100, 5099]
