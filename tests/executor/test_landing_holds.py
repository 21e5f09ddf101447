"""A landing holds only what the agent was shown (issue: a second urgent item after a landed
wake got no wake and, minutes later, paged a person about an item the agent never saw)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Desk, urgent

FAKES = Path(__file__).resolve().parents[1] / "fakes"


@pytest.fixture
def fake(desk: Desk, tmp_path: Path) -> Path:
    argv_file = tmp_path / "argv.jsonl"
    desk.setenv("DESKD_AGENT_CMD", str(FAKES / "fake-claude"))
    desk.monkeypatch.setenv("FAKE_ARGV_FILE", str(argv_file))
    return argv_file


def open_attempts(desk: Desk) -> list[dict[str, object]]:
    with desk.db() as conn:
        rows = conn.execute("SELECT * FROM attempts WHERE outcome = 'pending' ORDER BY id")
        return [dict(r) for r in rows]


def test_a_new_urgent_item_after_a_landed_wake_gets_its_own_wake_at_once(
    desk: Desk, fake: Path
) -> None:
    urgent(desk, title="first")
    first = desk.json("tick", "--execute", "--wait")["launched"][0]["attempt_id"]
    desk.advance(seconds=20)
    second_item = urgent(desk, title="second")
    out = desk.json("tick", "--execute", "--wait")
    (action,) = out["actions"]
    assert action["rung"] == "resume"  # the parked session, at the role's start rung
    (live,) = open_attempts(desk)
    assert live["id"] != first and live["landed_at"] is not None
    with desk.db() as conn:
        notified = conn.execute(
            "SELECT notified_at FROM items WHERE id = ?", (second_item,)
        ).fetchone()[0]
    assert notified is not None  # the agent was shown the second item
    # Later, nobody is paged about items the agent was given while their SLA runs.
    desk.advance(minutes=5)
    desk.json("tick", "--execute", "--wait")
    assert desk.json("pages") == []


def test_a_new_normal_item_waits_for_its_batch_before_its_own_wake(desk: Desk, fake: Path) -> None:
    urgent(desk, title="first")
    desk.json("tick", "--execute", "--wait")
    desk.advance(seconds=20)
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "later")
    assert desk.json("tick", "--execute", "--wait")["actions"] == []  # inside its batch
    desk.advance(minutes=3)
    (action,) = desk.json("tick", "--execute", "--wait")["actions"]
    assert action["rung"] == "resume"
