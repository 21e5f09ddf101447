"""The session hook never fails the agent: every problem is exit 0, empty stdout, a log line."""

from __future__ import annotations

import os
import pty
import sqlite3
import time
from pathlib import Path

import pytest
from hook_helpers import HookDesk, HookRun, fixture, hook_env, run_hook

from conftest import Desk
from deskd.store.db import connect


@pytest.fixture
def hd(desk: Desk) -> HookDesk:
    return HookDesk(desk)


@pytest.fixture
def seeded(hd: HookDesk) -> HookDesk:
    """A desk whose roles table is seeded and alpha has one unread item."""
    hd.enqueue("alpha", "disk 91%", priority="urgent")
    return hd


def assert_silent(run: HookRun) -> None:
    assert (run.code, run.stdout, run.stderr) == (0, "", "")


@pytest.mark.parametrize(
    ("stdin", "logged"),
    [
        (b"", "empty input"),
        (b"   \n", "empty input"),
        (b"{not json", "malformed input, not JSON"),
        (b"\xff\xfe garbage", "malformed input, not JSON"),
        (b"[1, 2]", "no hook_event_name"),
        (b'{"session_id": "s"}', "no hook_event_name"),
        (b'{"hook_event_name": 7}', "no hook_event_name"),
    ],
)
def test_malformed_input_is_logged_and_changes_nothing(
    seeded: HookDesk, stdin: bytes, logged: str
) -> None:
    before = seeded.desk.dump()
    run = seeded.hook(stdin)
    assert_silent(run)
    assert seeded.desk.dump() == before
    assert logged in seeded.log_text()
    assert "role=alpha" in seeded.log_text()


def test_a_terminal_on_stdin_is_read_as_empty_input(seeded: HookDesk) -> None:
    leader, follower = pty.openpty()
    try:
        # Waiting for input would wait forever (nothing writes to the terminal): run_hook's
        # outer bound would end it, failing the test.
        run = run_hook(follower, env=seeded.env())
    finally:
        os.close(leader)
        os.close(follower)
    assert_silent(run)
    assert "empty input" in seeded.log_text()


def test_without_deskd_role_it_does_nothing(seeded: HookDesk) -> None:
    before = seeded.desk.dump()
    run = seeded.hook(fixture("post_tool_use"), role=None)
    assert_silent(run)
    assert seeded.desk.dump() == before
    assert "DESKD_ROLE is not set" in seeded.log_text()


def test_without_deskd_role_or_a_named_desk_it_leaves_no_trace(tmp_path: Path) -> None:
    env = hook_env(tmp_path, role=None, now=None)
    del env["DESKD_HOME"]
    run = run_hook(fixture("post_tool_use"), env=env, cwd=tmp_path)
    assert_silent(run)
    assert list(tmp_path.iterdir()) == []


def test_a_missing_database_is_logged_and_not_created(hd: HookDesk) -> None:
    run = hd.hook(fixture("post_tool_use"))
    assert_silent(run)
    assert not hd.desk.db_path.exists()
    assert f"no desk database at {hd.desk.db_path}" in hd.log_text()


def test_deskd_db_names_the_database(seeded: HookDesk, tmp_path: Path) -> None:
    missing = tmp_path / "elsewhere.db"
    assert_silent(seeded.hook(fixture("post_tool_use"), DESKD_DB=str(missing)))
    assert f"no desk database at {missing}" in seeded.log_text()

    run = seeded.hook(fixture("post_tool_use"), DESKD_DB=str(seeded.desk.db_path))
    assert "disk 91%" in run.context()


def test_a_locked_database_is_given_up_on_quickly(seeded: HookDesk) -> None:
    # The same hook for another role, unlocked and just before: what starting it costs on
    # this machine at this moment, so the bound below is on the wait, not on the load.
    started = time.monotonic()
    assert_silent(seeded.hook(fixture("post_tool_use"), role="beta"))
    unlocked = time.monotonic() - started
    before = seeded.desk.dump()
    holder = sqlite3.connect(seeded.desk.db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        run = seeded.hook(fixture("post_tool_use"))
        elapsed = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert_silent(run)
    assert elapsed - unlocked < 10  # it waits BUSY_MS (1.5 s), never for the holder
    assert "database is locked" in seeded.log_text()
    assert seeded.desk.dump() == before  # no heartbeat, nothing marked shown
    assert "disk 91%" in seeded.hook(fixture("post_tool_use")).context()


def test_an_unknown_role_is_logged(seeded: HookDesk) -> None:
    before = seeded.desk.dump()
    assert_silent(seeded.hook(fixture("post_tool_use"), role="zeta"))
    assert seeded.desk.dump() == before
    assert "unknown role 'zeta'" in seeded.log_text()


def test_a_role_the_desk_file_declares_is_seeded_on_a_fresh_database(hd: HookDesk) -> None:
    connect(hd.desk.db_path).close()  # a migrated database no deskd write has seeded
    hd.hook(fixture("post_tool_use"))
    assert len(hd.sessions()) == 1  # alpha is in deskd.toml: seeded, heartbeat recorded
    assert_silent(hd.hook(fixture("post_tool_use"), role="zeta"))
    assert "unknown role 'zeta'" in hd.log_text()


def test_a_disabled_role_is_logged(seeded: HookDesk) -> None:
    text = (seeded.desk.home / "deskd.toml").read_text(encoding="utf-8")
    seeded.desk.write_desk(text.replace('[[roles]]\nname = "gamma"\ntitle = "Gamma"\n', ""))
    seeded.enqueue("alpha", "a write syncs the roles")
    assert_silent(seeded.hook(fixture("post_tool_use"), role="gamma"))
    assert seeded.sessions("gamma") == []
    assert "role 'gamma' is disabled" in seeded.log_text()


def test_an_unknown_event_is_ignored(seeded: HookDesk) -> None:
    before = seeded.desk.dump()
    assert_silent(seeded.hook(fixture("post_tool_use", hook_event_name="PreToolUse")))
    assert seeded.desk.dump() == before
    assert "event PreToolUse is not one deskd handles" in seeded.log_text()


def test_a_bad_pinned_clock_is_logged(seeded: HookDesk) -> None:
    before = seeded.desk.dump()
    assert_silent(seeded.hook(fixture("post_tool_use"), DESKD_NOW="next tuesday"))
    assert seeded.desk.dump() == before
    assert "DESKD_NOW='next tuesday' is not an ISO 8601 time" in seeded.log_text()


def test_a_session_id_can_come_from_the_environment(seeded: HookDesk) -> None:
    payload = fixture("post_tool_use")
    del payload["session_id"]
    run = seeded.hook(payload, DESKD_SESSION_ID="from-env")
    assert "disk 91%" in run.context()
    assert seeded.sessions()[0]["native_id"] == "from-env"


def test_without_any_session_id_it_beats_but_surfaces_nothing(seeded: HookDesk) -> None:
    payload = fixture("post_tool_use")
    del payload["session_id"]
    assert_silent(seeded.hook(payload))
    (row,) = seeded.sessions()
    assert row["heartbeats"] == 1
    assert seeded.shown_ids() == []


def test_log_lines_go_to_deskd_log_dir(seeded: HookDesk, tmp_path: Path) -> None:
    logs = tmp_path / "elsewhere" / "logs"
    assert_silent(seeded.hook(b"{not json", DESKD_LOG_DIR=str(logs)))
    assert "malformed input" in (logs / "hook.log").read_text(encoding="utf-8")


def test_when_even_the_log_cannot_be_written_it_stays_silent(
    seeded: HookDesk, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    assert_silent(seeded.hook(b"{not json", DESKD_LOG_DIR=str(blocker / "logs")))


def test_each_problem_is_one_log_line(seeded: HookDesk) -> None:
    seeded.hook(b"{not json")
    seeded.hook(b"")
    lines = seeded.log_text().splitlines()
    assert len(lines) == 2
    assert all(" role=alpha " in line for line in lines)
    assert all(line.startswith("2026-12-01T14:00:00Z ") for line in lines)  # the pinned clock
