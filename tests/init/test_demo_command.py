"""`deskd demo`: the rehearsal runs end to end through the real CLI, executor, simulated agent
CLI, session hook and pager, and tells the story it promises."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from console_entry import console_with


def run_demo(folder: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    return subprocess.run(
        [sys.executable, "-m", "deskd", "demo", "--dir", str(folder)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_the_rehearsal_resumes_spawns_climbs_to_a_page_and_settles_it(tmp_path: Path) -> None:
    proc = run_demo(tmp_path / "demo")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "$ deskd init" in out and "$ deskd tick --execute --wait" in out
    # Every command is printed, the quiet ones and the clock moves too: it can be replayed.
    assert f"$ export DESKD_HOME={tmp_path / 'demo'} DESKD_NOW=2026-12-01T14:00:00Z" in out
    assert "$ export DESKD_NOW=2026-12-01T14:" in out
    assert "--json   # read by the demo" in out
    # alpha's parked session is resumed and lands; beta is spawned after the batch.
    assert "launch planned: resume alpha" in out
    assert "launch planned: spawn beta" in out
    assert "close attempt 1: resolved (items read)" in out
    # gamma never answers: it climbs to notify and a person is paged on the local channel,
    # then the page is settled once the item is acked.
    assert "gamma: inbox:gamma climbed to notify" in out
    assert "page received on the local channel: deskd: gamma has not answered" in out
    assert "settled" in out.split("A person acts on gamma's page", 1)[1]
    # The hook surfaces a running session's items, urgent first, and the role acks them.
    context = "\n".join(line for line in out.splitlines() if line.startswith("  │ "))
    assert context.index("5xx above 2% on api") < context.index("nightly report")
    assert "acked 2 items for alpha" in out
    assert (tmp_path / "demo" / "data" / "deskd.db").exists()
    # The hook command it prints can be replayed: its event file is in the kept desk.
    assert "$ DESKD_ROLE=alpha deskd-session-hook < PostToolUse.json" in out
    event = json.loads((tmp_path / "demo" / "PostToolUse.json").read_text())
    assert event["hook_event_name"] == "PostToolUse" and event["tool_name"] == "Bash"


def test_it_stops_with_one_line_before_anything_when_the_folder_is_not_empty(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "deskd.toml").write_text("# someone's desk\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    proc = console_with(env, "demo", "--dir", str(folder))  # it stops before any process
    assert proc.exit_code == 1 and proc.stdout == ""
    (line,) = proc.stderr.strip().splitlines()
    assert "is not empty" in line and "--force" not in line  # demo has no --force to advise
    assert (folder / "deskd.toml").read_text() == "# someone's desk\n"
