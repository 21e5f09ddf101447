"""Task demand through the CLI, pinned clock and the real executor (a fake agent CLI):
urgent tasks wake whatever the presence, idle work wakes only idle roles and never pages,
stalls after `stall_after` wakes that ran, revives on an update, and moves on reassignment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import DESK_TOML, Desk

FAKES = Path(__file__).resolve().parents[1] / "fakes"


@pytest.fixture
def fake(desk: Desk, tmp_path: Path) -> Path:
    """Every launch runs tests/fakes/fake-claude; FAKE_ARGV_FILE records each launch's argv."""
    argv_file = tmp_path / "argv.jsonl"
    # Launches that never land are transient failures, retried inside the rung: without
    # waiting between tries, so each tick costs the fake's runs and not 2 s + 4 s of backoff.
    desk.write_desk(DESK_TOML + '\n[agent]\nretry_wait = "0s"\n')
    desk.setenv("DESKD_AGENT_CMD", str(FAKES / "fake-claude"))
    desk.monkeypatch.setenv("FAKE_ARGV_FILE", str(argv_file))
    return argv_file


def launches(argv_file: Path) -> list[list[str]]:
    if not argv_file.exists():
        return []
    return [json.loads(line) for line in argv_file.read_text().splitlines() if line.strip()]


def add(desk: Desk, title: str, who: str, *args: str) -> int:
    return int(desk.json("task", "add", title, "--for", who, *args)["id"])


def attempts(desk: Desk, key: str | None = None) -> list[dict[str, Any]]:
    with desk.db() as conn:
        rows = conn.execute("SELECT * FROM attempts ORDER BY id").fetchall()
    return [dict(r) for r in rows if key is None or r["key"] == key]


def tick(desk: Desk) -> dict[str, Any]:
    return dict(desk.json("tick", "--execute", "--wait"))


def test_a_soft_deadline_never_wakes_an_online_role(desk: Desk) -> None:
    desk.ok("status", "set", "--role", "alpha", "--activity", "deploying")
    add(desk, "weekly report", "alpha", "--due", "2026-12-01T06:00")  # three hours overdue
    for _ in range(3):
        desk.advance(seconds=30)
        out = desk.json("tick")
        assert out["attempts"] == [] and out["actions"] == []
    assert desk.json("task", "list")[0]["overdue"] is True


def test_an_overdue_task_for_an_idle_role_is_ordinary_idle_work(desk: Desk) -> None:
    add(desk, "weekly report", "alpha", "--due", "2026-12-01T06:00")
    (a,) = desk.json("tick")["attempts"]
    assert (a["reason"], a["rung"]) == ("idle_task", "spawn")


def test_an_urgent_task_for_a_never_seen_role_spawns_and_the_prompt_names_it(desk: Desk) -> None:
    task_id = add(desk, "rotate the leaked API key", "beta", "--priority", "urgent")
    out = desk.json("tick")
    (action,) = out["actions"]
    assert (action["role"], action["rung"], action["reasons"]) == ("beta", "spawn", ["urgent_task"])
    assert (
        f"task #{task_id}" in action["prompt"] and "rotate the leaked API key" in action["prompt"]
    )
    assert f"deskd task update {task_id} --status in_progress" in action["prompt"]


def test_an_urgent_task_reaches_a_busy_role_through_its_session(desk: Desk) -> None:
    desk.ok("status", "set", "--role", "alpha")
    add(desk, "prod is down", "alpha", "--priority", "urgent")
    (a,) = desk.json("tick")["attempts"]
    assert (a["reason"], a["rung"]) == ("urgent_task", "session")


def test_idle_work_wakes_an_idle_role_but_never_pages(desk: Desk, tmp_path: Path) -> None:
    # Every launch fails before the model runs (no agent executable): the ladder climbs,
    # stops at spawn and retries that rung; nobody is paged for homework.
    desk.setenv("DESKD_AGENT_CMD", str(tmp_path / "no-such-agent"))
    add(desk, "tidy the docs", "alpha")
    rungs = []
    for _ in range(10):
        out = tick(desk)
        rungs += [a["rung"] for a in out["attempts"]]
        desk.advance(minutes=4)
    assert rungs and set(rungs) == {"spawn"} and len(rungs) >= 5
    assert desk.json("pages") == []
    assert all(a["failure_class"] == "permanent" for a in attempts(desk) if a["launched_at"])
    assert desk.json("task", "list")[0]["stalled"] is False  # failed launches are not wakes


def test_idle_work_stalls_after_stall_after_wakes_and_an_update_revives_it(
    desk: Desk, fake: Path
) -> None:
    task_id = add(desk, "tidy the docs", "alpha")
    desk.advance(minutes=1)
    for n in range(3):
        out = tick(desk)
        assert [(a["reason"], a["generation"]) for a in out["attempts"]] == [("idle_task", n)]
        assert desk.json("task", "list")[0]["idle_wakes"] == n + 1
        desk.advance(minutes=4)
    assert len(launches(fake)) == 3
    (row,) = desk.json("task", "list")
    assert row["stalled"] is True and "STALLED" in desk.ok("task", "list").stdout
    out = tick(desk)
    assert out["attempts"] == [] and out["launched"] == []
    assert [r["reason"] for r in out["resolved"]] == ["task picked up or stalled"]
    (source,) = desk.json("wake", "sources", "--role", "alpha")["tasks"]
    assert source["stalled"] is True and source["wakes"] is None
    assert "stalled: woken 3 times" in desk.ok("wake", "explain", "--role", "alpha").stdout
    (stalled,) = desk.json("status")["stalled_tasks"]
    assert (stalled["id"], stalled["idle_wakes"]) == (task_id, 3)
    assert "stalled: task" in desk.ok("status").stdout
    desk.advance(minutes=10)
    assert tick(desk)["attempts"] == []  # still stalled: nothing changed
    assert desk.json("pages") == []

    desk.ok("task", "update", str(task_id), "--note", "half done, picking it up again")
    assert desk.json("task", "list")[0]["stalled"] is False
    desk.advance(minutes=1)
    out = tick(desk)
    assert [a["reason"] for a in out["attempts"]] == ["idle_task"] and out["launched"]


def test_a_busy_role_is_not_interrupted_for_ordinary_work(desk: Desk) -> None:
    add(desk, "tidy the docs", "alpha")
    desk.ok("status", "set", "--role", "alpha", "--activity", "deploying")
    assert desk.json("tick")["attempts"] == []
    assert "the role is busy" in desk.ok("wake", "explain", "--role", "alpha").stdout


def test_a_blocked_task_wakes_no_one(desk: Desk) -> None:
    task_id = add(desk, "deploy", "alpha")
    desk.ok("task", "update", str(task_id), "--status", "blocked", "--blocked-on", "beta's review")
    assert desk.json("tick")["attempts"] == []


def test_reassigning_an_urgent_task_moves_the_wake(desk: Desk, fake: Path) -> None:
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "never_lands")
    task_id = add(desk, "rotate the key", "alpha", "--priority", "urgent")
    tick(desk)
    (first,) = attempts(desk, f"urgent_task:{task_id}")
    assert first["role"] == "alpha" and first["outcome"] == "pending"
    desk.advance(minutes=1)
    desk.ok("task", "update", str(task_id), "--for", "beta", "--note", "beta owns keys")
    out = tick(desk)
    assert [(r["attempt_id"], r["outcome"]) for r in out["resolved"]] == [
        (first["id"], "withdrawn")
    ]
    assert [(a["role"], a["rung"]) for a in out["attempts"]] == [("beta", "spawn")]
    old, new = attempts(desk, f"urgent_task:{task_id}")
    assert (old["outcome"], old["outcome_reason"]) == (
        "withdrawn",
        f"task {task_id} reassigned to beta",
    )
    assert (new["role"], new["outcome"]) == ("beta", "pending")


def test_reassigning_idle_work_moves_the_wake(desk: Desk, fake: Path) -> None:
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "never_lands")
    task_id = add(desk, "tidy", "alpha")
    tick(desk)
    desk.advance(minutes=1)
    desk.ok("task", "update", str(task_id), "--for", "gamma")
    out = tick(desk)
    assert [r["reason"] for r in out["resolved"]] == [f"task {task_id} reassigned to gamma"]
    assert [a["key"] for a in out["attempts"]] == ["idle_task:gamma"]


@pytest.mark.parametrize("verb,outcome", [("done", "resolved"), ("cancel", "withdrawn")])
def test_an_urgent_task_wake_resolves_when_done_and_withdraws_when_cancelled(
    desk: Desk, fake: Path, verb: str, outcome: str
) -> None:
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "never_lands")
    task_id = add(desk, "rotate the key", "alpha", "--priority", "urgent")
    tick(desk)
    desk.ok("task", verb, str(task_id), "--by", "alpha")
    desk.advance(minutes=1)
    out = tick(desk)
    assert [r["outcome"] for r in out["resolved"]] == [outcome] and out["attempts"] == []


def test_wake_explain_says_why_tasks_wake(desk: Desk) -> None:
    add(desk, "rotate the key", "alpha", "--priority", "urgent")
    add(desk, "tidy", "alpha", "--due", "2026-12-01T06:00")
    text = desk.ok("wake", "explain", "--role", "alpha").stdout
    assert "urgent and pending: wakes the role whatever its presence" in text
    assert "a due date never wakes anyone" in text and "overdue" in text


def test_it_launches_exactly_stall_after_idle_wakes_then_stalls(desk: Desk) -> None:
    # The first tick runs in the same instant the task was added (a pinned clock, or a tick
    # right after `task add`): that wake was given the task and counts like the others.
    desk.write_desk(
        DESK_TOML.replace(
            'inbox_sources = ["alert", "signal"]', 'inbox_sources = ["alert"]\nstall_after = 3'
        )
        + '\n[agent]\nkind = "command"\ncommand = "/bin/true"\nretry_wait = "0s"\n'
    )
    add(desk, "tidy the docs", "alpha")
    launched, shown = 0, []
    for _ in range(15):
        out = tick(desk)
        launched += len(out["launched"])
        (row,) = desk.json("task", "list")
        shown.append((row["idle_wakes"], row["stalled"]))
        desk.advance(minutes=1)
    assert launched == 3
    assert shown[-1] == (3, True)
    assert sorted(set(shown)) == [(1, False), (2, False), (3, True)]
