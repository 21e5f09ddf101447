"""A killed executor does not leave its role looking busy: the healing tick parks the session
its launch started and relaunches the wake within its rung, resuming that session; a person
is paged only when the machine rungs are spent."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from conftest import Desk, urgent

DESK = """\
[desk]
name = "died"
timezone = "America/New_York"
inbox_sources = ["alert"]

[agent]
kind = "command"
command = "/bin/sh"
# It reports its session, then works (a spawn) or answers at once (a resume).
args = ["-c", "echo '{{\\"session_id\\": \\"s-1\\"}}'; echo \\"$1\\" >> {log}; [ \\"$1\\" = resume ] || sleep 300", "sh", "{{mode}}"]
retry_wait = "0s"

[[roles]]
name = "alpha"
"""


def wait_until(check: object, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def test_a_killed_executor_is_relaunched_within_its_rung_resuming_its_session(
    desk: Desk, tmp_path: Path
) -> None:
    log = tmp_path / "modes"
    desk.write_desk(DESK.format(log=log))
    urgent(desk)
    launched = desk.json("tick", "--execute")["launched"][0]
    executor, first = int(launched["pid"]), int(launched["attempt_id"])
    wait_until(lambda: log.exists() and log.read_text().split() == ["spawn"])
    # The launch reported its session: the executor records it working (as it reads it).
    wait_until(lambda: desk.json("roles")[0]["presence"] == "online")

    os.kill(executor, signal.SIGKILL)
    os.waitpid(executor, 0)
    desk.advance(minutes=1)
    healed = desk.json("tick", "--execute", "--wait")
    assert healed["died"] == [first]
    (alpha,) = desk.json("roles")
    assert alpha["presence"] == "idle" and alpha["session_id"] == "s-1"  # parked, resumable
    (again,) = healed["attempts"]
    assert (again["rung"], again["generation"]) == ("spawn", 0)
    (action,) = healed["actions"]
    assert action["session_id"] == "s-1"
    assert log.read_text().split() == ["spawn", "resume"]
    assert healed["pages"] == [] and desk.json("pages") == []
    with desk.db() as conn:
        rows = conn.execute("SELECT id, outcome, outcome_reason FROM attempts ORDER BY id")
        assert tuple(rows.fetchone()) == (first, "superseded", "executor died: relaunched")
        (detail,) = conn.execute("SELECT detail FROM events WHERE kind = 'launch.finished'")
    assert json.loads(detail[0])["session_id"] == "s-1"
