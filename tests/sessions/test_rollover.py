"""The cross-day rollover through the CLI, the tick and the real executor (fake-claude):
the America/New_York boundary, the sentinel and hand-off checks, retries then one page, the
fresh session's prompt, and the session history."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import Desk

FAKES = Path(__file__).resolve().parents[1] / "fakes"
NOTE = "Open: PR 12 review. First next step: answer beta's question."


A1 = "46b38223-1467-4445-9ad8-2f1eba792f23"  # alpha's native session (a UUID, as Claude prints)
B1 = "ddba879a-007e-43a8-889d-b94941c50073"
A2 = "6bf9db12-0489-4c3e-909e-3ee91f144014"


@pytest.fixture
def fake(desk: Desk, tmp_path: Path) -> Path:
    argv_file = tmp_path / "argv.jsonl"
    desk.setenv("DESKD_AGENT_CMD", str(FAKES / "fake-claude"))
    desk.monkeypatch.setenv("FAKE_ARGV_FILE", str(argv_file))
    desk.setenv("DESKD_SIM_HANDOFF", NOTE)
    return argv_file


def launches(argv_file: Path) -> list[list[str]]:
    if not argv_file.exists():
        return []
    return [json.loads(line) for line in argv_file.read_text().splitlines() if line.strip()]


def session_at(desk: Desk, role: str, native: str, *, local: str) -> None:
    """A resting session for ``role`` started at ``local`` (HH:MM, 2026-12-01, New York)."""
    hours, minutes = (int(p) for p in local.split(":"))
    back = (9 - hours) * 60 - minutes  # the pinned clock reads 09:00 local
    desk.advance(minutes=-back)
    desk.ok("status", "set", "--role", role, "--state", "resting", "--session-id", native)
    desk.advance(minutes=back)


def session_row(desk: Desk, native: str) -> dict[str, Any]:
    with desk.db() as conn:
        return dict(
            conn.execute("SELECT * FROM sessions WHERE native_id = ?", (native,)).fetchone()
        )


def tick(desk: Desk) -> dict[str, Any]:
    return dict(desk.json("tick", "--execute", "--wait"))


def test_the_boundary_is_0400_new_york_time(desk: Desk) -> None:
    session_at(desk, "alpha", A1, local="03:30")  # the previous desk day
    session_at(desk, "beta", B1, local="04:30")  # today
    due = desk.json("session", "rollover")["due"]
    assert [(d["role"], d["native_id"]) for d in due] == [("alpha", A1)]
    out = desk.json("tick")
    assert [(a["reason"], a["role"], a["rung"]) for a in out["attempts"]] == [
        ("rollover", "alpha", "resume")
    ]
    (action,) = out["actions"]
    assert action["session_id"] == A1 and "SESSION_DONE" in action["prompt"]
    assert "deskd session handoff --role alpha" in action["prompt"]


def test_a_clean_wind_down_ends_the_session_and_the_next_wake_starts_fresh_with_the_hand_off(
    desk: Desk, fake: Path
) -> None:
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "rollover_ok")
    session_at(desk, "alpha", A1, local="03:30")
    out = tick(desk)
    assert [a["reason"] for a in out["attempts"]] == ["rollover"]
    (argv,) = launches(fake)
    assert f"--resume={A1}" in argv
    row = session_row(desk, A1)
    assert (row["state"], row["end_reason"]) == ("ended", "rollover")
    desk.advance(minutes=1)
    assert [r["reason"] for r in tick(desk)["resolved"]] == ["session ended"]

    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk 91%",
            "--priority", "urgent")  # fmt: skip
    (action,) = desk.json("tick")["actions"]
    assert action["rung"] == "spawn" and action["session_id"] is None
    assert "Hand-off from your previous session" in action["prompt"] and NOTE in action["prompt"]
    history = desk.json("session", "list", "--role", "alpha")
    assert history[0]["end_reason"] == "rollover" and history[0]["handoff"] == NOTE
    assert history[0]["wakes"] == 1 and history[0]["cost_usd"] > 0


def test_the_hand_off_reaches_only_the_first_fresh_session(desk: Desk, fake: Path) -> None:
    desk.ok("session", "handoff", "--role", "alpha", "--note", NOTE)
    desk.advance(minutes=1)
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "one",
            "--priority", "urgent")  # fmt: skip
    assert NOTE in tick(desk)["actions"][0]["prompt"]
    desk.ok("status", "end", "--role", "alpha")
    desk.ok("inbox", "ack", "--for", "alpha", "--seen")
    desk.advance(minutes=1)
    assert [r["outcome"] for r in tick(desk)["resolved"]] == ["resolved"]
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "two",
            "--priority", "urgent")  # fmt: skip
    (action,) = desk.json("tick")["actions"]
    assert action["rung"] == "spawn" and NOTE not in action["prompt"]


@pytest.mark.parametrize(
    "mode,missing",
    [("success", "no SESSION_DONE line"), ("rollover_no_handoff", "no hand-off stored")],
)
def test_a_wind_down_without_both_proofs_leaves_the_session_live_and_counts_a_try(
    desk: Desk, fake: Path, mode: str, missing: str
) -> None:
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", mode)
    session_at(desk, "alpha", A1, local="03:30")
    tick(desk)
    assert session_row(desk, A1)["state"] == "resting"
    (due,) = desk.json("session", "rollover")["due"]
    assert due["tries"] == 1
    with desk.db() as conn:
        (event,) = conn.execute("SELECT detail FROM events WHERE kind = 'rollover.try_failed'")
    assert any(missing in m for m in json.loads(event[0])["missing"])


def test_failed_wind_downs_retry_three_times_then_page_once(desk: Desk, fake: Path) -> None:
    session_at(desk, "alpha", A1, local="03:30")  # success mode: no sentinel, no hand-off
    generations = []
    for _ in range(6):
        out = tick(desk)
        generations += [(a["rung"], a["generation"]) for a in out["attempts"]]
        desk.advance(minutes=1)
    assert generations[:4] == [("resume", 0), ("resume", 1), ("resume", 2), ("notify", 3)]
    assert len(launches(fake)) == 3
    (page,) = desk.json("pages")
    assert page["role"] == "alpha" and "failed 3 times" in page["body"]
    for _ in range(4):
        desk.advance(minutes=20)
        tick(desk)
    assert len(desk.json("pages")) == 1 and len(launches(fake)) == 3
    assert session_row(desk, A1)["state"] == "resting"


def test_a_wind_down_that_finds_the_role_lock_held_runs_once_it_is_free(
    desk: Desk, fake: Path
) -> None:
    from deskd.adapters.locks import try_lock

    session_at(desk, "alpha", A1, local="03:30")
    # Held while no launch of the role runs: an executor racing for this very launch, about
    # to claim it. The wind-down is left to it (still planned, not a try), and a launch that
    # nobody claimed is handed again a minute on.
    with try_lock(desk.home / "run" / "role-alpha.lock"):
        tick(desk)
    assert launches(fake) == []
    (due,) = desk.json("session", "rollover")["due"]
    assert due["tries"] == 0
    desk.advance(minutes=2)
    tick(desk)
    assert len(launches(fake)) == 1
    (due,) = desk.json("session", "rollover")["due"]
    assert due["tries"] == 1


def test_a_busy_role_is_wound_down_only_once_it_rests(desk: Desk, fake: Path) -> None:
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "rollover_ok")
    session_at(desk, "alpha", A1, local="03:30")
    desk.ok("status", "set", "--role", "alpha", "--session-id", A1)  # working, online
    out = tick(desk)
    assert [a["rung"] for a in out["attempts"]] == ["session"] and out["launched"] == []
    desk.ok("status", "set", "--role", "alpha", "--state", "resting", "--session-id", A1)
    desk.advance(minutes=2)
    tick(desk)
    assert session_row(desk, A1)["state"] == "ended"


def test_rollover_by_hand_runs_the_wind_down_now(desk: Desk, fake: Path) -> None:
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "rollover_ok")
    session_at(desk, "alpha", A1, local="03:30")
    before = desk.dump()
    dry = desk.json("session", "rollover")
    assert dry["dry_run"] and dry["due"][0]["plan"] == ["resume"] and desk.dump() == before
    text = desk.ok("session", "rollover", "--execute").stdout  # what happened, not the plan
    assert "outcome" in text.splitlines()[1]
    assert "ended — attempt 1: launch finished, landed" in text
    assert session_row(desk, A1)["end_reason"] == "rollover"
    assert desk.json("session", "rollover")["due"] == []


def test_a_handoff_is_refused_for_another_role_and_when_empty(desk: Desk) -> None:
    out = desk.run("session", "handoff", "--role", "beta", "--note", "x", role="alpha")
    assert out.exit_code == 1
    assert desk.run("session", "handoff", "--role", "alpha", "--note", "  ").exit_code == 1
    stored = desk.json("session", "handoff", "--note", "queue empty", role="alpha")
    assert stored["role"] == "alpha"


def test_session_list_shows_the_history_of_one_role(desk: Desk) -> None:
    session_at(desk, "alpha", A1, local="03:30")
    desk.ok("status", "set", "--role", "alpha", "--state", "resting", "--session-id", A2)
    rows = desk.json("session", "list", "--role", "alpha")
    assert [(r["native_id"], r["state"], r["desk_day"]) for r in rows] == [
        (A2, "resting", "2026-12-01"),
        (A1, "superseded", "2026-11-30"),
    ]
    assert A1 in desk.ok("session", "list", "--role", "alpha").stdout
    assert desk.run("session", "list", "--role", "nobody").exit_code == 1


def test_a_wind_down_riding_along_with_another_wake_is_still_checked(
    desk: Desk, fake: Path
) -> None:
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "rollover_ok")
    session_at(desk, "alpha", A1, local="03:30")
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk 91%",
            "--priority", "urgent")  # fmt: skip
    out = tick(desk)
    (action,) = out["actions"]
    assert sorted(action["reasons"]) == ["1 unread item (urgent)", "rollover"]
    assert len(launches(fake)) == 1
    assert session_row(desk, A1)["end_reason"] == "rollover"
