"""Postconditions (`task add --done-when`) through the CLI and real executing ticks, the clock
pinned: a failing check reopens the task and wakes the role with its output; after
`reopen_after` failures a person is paged; a passing check closes it; a check that hangs is
stopped at its timeout and counted neither way; bad input changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import DESK_TOML, Desk

WORKDIR_TOML = DESK_TOML.replace('title = "Alpha"', 'title = "Alpha"\nworkdir = "alpha-work"')


@pytest.fixture
def work(desk: Desk, tmp_path: Path) -> Path:
    """alpha works in alpha-work/; no agent CLI can start, so a wake's prompt is planned
    (and shown by `tick --json`) without an agent process."""
    folder = desk.home / "alpha-work"
    folder.mkdir()
    desk.write_desk(WORKDIR_TOML.replace("[desk]", "[desk]\nreopen_after = 2", 1))
    desk.setenv("DESKD_AGENT_CMD", str(tmp_path / "no-such-agent"))
    return folder


def tick(desk: Desk) -> dict[str, Any]:
    return dict(desk.json("tick", "--execute", "--wait"))


def task(desk: Desk, task_id: int) -> dict[str, Any]:
    (row,) = [t for t in desk.json("task", "list", "--all") if t["id"] == task_id]
    return dict(row)


def add_checked(desk: Desk, check: str, *more: str) -> int:
    out = desk.json("task", "add", "ship it", "--for", "alpha", "--done-when", check, *more)
    assert out["check"] == check
    return int(out["id"])


def test_it_reopens_a_task_whose_check_fails_and_wakes_the_role_with_the_output(
    desk: Desk, work: Path
) -> None:
    task_id = add_checked(desk, "sh -c 'echo missing done.txt >&2; test -f done.txt'")
    said = desk.json("task", "done", str(task_id), "--by", "alpha")
    assert said["status"] == "in_progress" and said["changed"]["check"] == "due"
    assert task(desk, task_id)["check"]["state"] == "due"
    assert desk.json("tick")["attempts"] == []  # a task said done wakes no one meanwhile
    desk.advance(minutes=1)
    out = tick(desk)
    (checked,) = out["checks"]
    assert (checked["task_id"], checked["outcome"], checked["failures"]) == (task_id, "failed", 1)
    assert "exit 1" in checked["output"] and "missing done.txt" in checked["output"]
    row = task(desk, task_id)
    assert row["status"] == "pending" and row["check"]["outcome"] == "failed"
    (action,) = out["actions"]  # woken in the same tick, the output framed as data
    assert action["role"] == "alpha" and action["reasons"] == ["idle_task"]
    assert "its done-when check failed" in action["prompt"]
    assert '"exit 1 missing done.txt"' in action["prompt"]
    history = desk.json("task", "history", str(task_id))
    assert history[-1]["by"] == "deskd" and history[-1]["change"]["check"] == "failed"
    assert desk.json("pages") == []


def test_it_pages_a_person_after_reopen_after_failures_and_the_task_stops_waking(
    desk: Desk, work: Path
) -> None:
    task_id = add_checked(desk, "false")
    for failures in (1, 2):
        desk.ok("task", "done", str(task_id), "--by", "alpha")
        desk.advance(minutes=1)
        (checked,) = tick(desk)["checks"]
        assert (checked["outcome"], checked["failures"]) == ("failed", failures)
    (page,) = desk.json("pages")
    assert f"task {task_id} failed its check 2 times" in page["title"]
    row = task(desk, task_id)
    assert row["stalled"] is True and row["status"] == "pending"
    desk.advance(minutes=5)
    assert "idle_task" not in [a["reason"] for a in desk.json("tick")["attempts"]]
    desk.ok("task", "update", str(task_id), "--note", "look at the linker flags")  # a person
    assert task(desk, task_id)["stalled"] is False
    assert "idle_task" in [a["reason"] for a in desk.json("tick")["attempts"]]


def test_a_passing_check_closes_the_task_and_the_history_says_it_was_checked(
    desk: Desk, work: Path
) -> None:
    task_id = add_checked(desk, "test -f done.txt")
    (work / "done.txt").write_text("yes")
    desk.ok("task", "update", str(task_id), "--status", "done", "--by", "alpha")
    desk.advance(minutes=1)
    (checked,) = tick(desk)["checks"]
    assert checked["outcome"] == "passed"
    row = task(desk, task_id)
    assert row["status"] == "done" and row["check"]["state"] == "passed"
    assert desk.json("task", "history", str(task_id))[-1]["change"] == {
        "status": "done",
        "check": "passed",
    }
    desk.advance(minutes=1)
    assert tick(desk)["checks"] == []


def test_a_check_that_hangs_is_stopped_at_its_timeout_and_counted_neither_way(
    desk: Desk, work: Path
) -> None:
    task_id = add_checked(desk, "sleep 600", "--check-timeout", "1s")
    desk.ok("task", "done", str(task_id), "--by", "alpha")
    desk.advance(minutes=1)
    (checked,) = tick(desk)["checks"]
    assert checked["outcome"] == "error" and "timed out after 1s" in checked["output"]
    row = task(desk, task_id)
    assert row["status"] == "in_progress" and row["check"]["failures"] == 0
    assert row["check"]["state"] == "due" and row["check"]["retry_at"] is not None
    assert "check due, could not run" in desk.ok("task", "list").stdout
    desk.advance(seconds=30)  # before its retry: not run again
    assert tick(desk)["checks"] == []
    desk.advance(minutes=1)
    (again,) = tick(desk)["checks"]
    assert again["outcome"] == "error" and task(desk, task_id)["status"] != "done"


def test_a_probe_check_passes_on_a_truthy_value(desk: Desk, work: Path) -> None:
    (desk.home / "desk_checks.py").write_text(
        "from pathlib import Path\n\ndef built():\n    return Path('alpha-work/out').exists()\n"
    )
    desk.write_desk(WORKDIR_TOML.replace("[desk]", '[desk]\nprobe_allowlist = ["desk_checks"]', 1))
    task_id = add_checked(desk, "probe:desk_checks:built")
    desk.ok("task", "done", str(task_id), "--by", "alpha")
    desk.advance(minutes=1)
    (checked,) = tick(desk)["checks"]
    assert checked["outcome"] == "failed" and "returned False" in checked["output"]
    (work / "out").write_text("")
    desk.ok("task", "done", str(task_id), "--by", "alpha")
    desk.advance(minutes=1)
    assert tick(desk)["checks"][0]["outcome"] == "passed"
    assert task(desk, task_id)["status"] == "done"


def test_a_check_command_gets_no_role_identity_nor_supervisor_secrets(
    desk: Desk, work: Path
) -> None:
    desk.setenv("DESKD_SUPERVISOR_CODE", "s3cret")
    task_id = add_checked(desk, "sh -c 'env > seen.env'")
    desk.ok("task", "done", str(task_id), "--by", "alpha")
    desk.advance(minutes=1)
    tick(desk)
    seen = (work / "seen.env").read_text()
    assert "s3cret" not in seen and "DESKD_ROLE=" not in seen
    assert f"PWD={work}" in seen


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (("--done-when", "make 'test"), "--done-when"),
        (("--done-when", "   "), "--done-when"),
        (("--done-when", "probe:desk_checks:built"), "probe_allowlist"),
        (("--check-timeout", "5m"), "--check-timeout"),
        (("--done-when", "true", "--check-timeout", "soon"), "--check-timeout"),
    ],
)
def test_bad_checks_are_refused_and_change_nothing(
    desk: Desk, work: Path, args: tuple[str, ...], names: str
) -> None:
    desk.ok("task", "list")
    before = desk.dump()
    out = desk.run("task", "add", "ship it", "--for", "alpha", *args, "--json")
    assert out.exit_code == 1 and names in out.error()["message"]
    assert desk.dump() == before


def test_a_check_needs_a_role_not_a_capability(desk: Desk, work: Path) -> None:
    out = desk.run("task", "add", "x", "--capability", "triage", "--done-when", "true")
    assert out.exit_code == 1 and "--done-when" in out.stderr and "--capability" in out.stderr


def test_a_hook_with_a_check_opens_a_checked_task_at_each_fire(desk: Desk, work: Path) -> None:
    desk.json(
        "hook",
        "add",
        "--for",
        "alpha",
        "--title",
        "nightly build",
        "--at",
        "2026-12-01T09:05",
        "--done-when",
        "test -f built",
    )
    bad = desk.run(
        "hook",
        "add",
        "--for",
        "alpha",
        "--title",
        "x",
        "--every",
        "1h",
        "--done-when",
        "'",
        "--json",
    )
    assert bad.exit_code == 1 and "--done-when" in bad.error()["message"]
    desk.advance(minutes=6)
    assert len(tick(desk)["hooks_fired"]) == 1
    (row,) = desk.json("task", "list", "--for", "alpha")
    assert row["title"] == "nightly build" and row["check"]["spec"] == "test -f built"
    with desk.db() as conn:
        refs = [r[0] for r in conn.execute("SELECT ref FROM items WHERE role = 'alpha'")]
    assert refs == [f"task:{row['id']}"]
    (work / "built").write_text("")
    desk.ok("task", "done", str(row["id"]), "--by", "alpha")
    desk.advance(minutes=1)
    assert tick(desk)["checks"][0]["outcome"] == "passed"


def test_a_tick_that_died_mid_run_leaves_the_check_due_and_the_next_tick_runs_it(
    desk: Desk, work: Path
) -> None:
    task_id = add_checked(desk, "true")
    desk.ok("task", "done", str(task_id), "--by", "alpha")
    with desk.db() as conn:  # a tick marked the run in the ledger, then died
        conn.execute("UPDATE task_checks SET started_at = ?", (desk.now_ms,))
    assert task(desk, task_id)["check"]["state"] == "due"
    desk.advance(minutes=1)
    assert [c["outcome"] for c in tick(desk)["checks"]] == ["passed"]
    assert task(desk, task_id)["status"] == "done"
