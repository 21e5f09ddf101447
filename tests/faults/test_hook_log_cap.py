"""logs/hook.log is capped: at 256 KiB it becomes hook.log.1 (replacing the one before), so a
desk whose hook logs on every call (5,000 calls made 533 KB) stays within about 512 KiB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import Desk

HOOK = Path(sys.executable).parent / "deskd-session-hook"
CAP = 256 * 1024


def _logging_hook_call(desk: Desk) -> None:
    """A hook call that logs one line (no DESKD_ROLE: nothing to do) and exits 0."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(DESKD_HOME=str(desk.home), DESKD_NOW=desk.now_iso)
    payload = {"hook_event_name": "PostToolUse", "session_id": "s1", "tool_name": "Read"}
    done = subprocess.run(
        [str(HOOK)], input=json.dumps(payload).encode(), env=env, capture_output=True, timeout=30
    )
    assert done.returncode == 0


def test_hook_log_rotates_at_its_cap_and_keeps_one_old_file(desk: Desk) -> None:
    logs = desk.home / "logs"
    logs.mkdir(mode=0o700)
    full = "x" * 199 + "\n"
    (logs / "hook.log").write_text(full * (CAP // 200 + 1))
    _logging_hook_call(desk)
    old = (logs / "hook.log.1").read_text()
    assert old.startswith(full) and "DESKD_ROLE is not set" in old.splitlines()[-1]
    assert not (logs / "hook.log").exists() or (logs / "hook.log").stat().st_size == 0
    for _ in range(3):
        _logging_hook_call(desk)
    lines = (logs / "hook.log").read_text().splitlines()
    assert len(lines) == 3 and all("DESKD_ROLE is not set" in line for line in lines)
    # A second rotation replaces hook.log.1: two files at most, each about the cap.
    (logs / "hook.log").write_text(full * (CAP // 200 + 1))
    _logging_hook_call(desk)
    assert sorted(p.name for p in logs.iterdir()) == ["hook.log.1"]
    assert (logs / "hook.log.1").stat().st_size < CAP + 4096
    assert oct((logs / "hook.log.1").stat().st_mode & 0o777) == oct(0o600)
