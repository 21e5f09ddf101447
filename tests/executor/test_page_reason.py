"""A page after a launch rung failed says why it failed, in one line: the person paged can
act on "agent executable not found" without opening the ledger."""

from __future__ import annotations

from pathlib import Path

from conftest import Desk, urgent


def test_a_page_for_a_failed_spawn_says_why_the_launch_failed(desk: Desk, tmp_path: Path) -> None:
    desk.setenv("DESKD_AGENT_CMD", str(tmp_path / "claude"))  # not there
    urgent(desk)
    desk.json("tick", "--execute", "--wait")  # spawn: the launch fails, permanently
    desk.advance(minutes=1)
    desk.json("tick", "--execute", "--wait")  # a permanent failure climbs at once
    (page,) = desk.json("pages")
    lines = page["body"].splitlines()
    (said,) = [line for line in lines if "spawn rung" in line]
    assert said.startswith(
        f"The spawn rung did not land: the launch failed: agent executable '{tmp_path / 'claude'}'"
        " not found"
    )
