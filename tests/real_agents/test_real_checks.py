"""A postcondition with the real Claude Code against the loopback stand-in: the role says done
before the work happened, the check fails and reopens the task, the wake carries the check's
output to the model, the agent's turn does the work (its shell tool call), and the check then
passes."""

from __future__ import annotations

import pytest
import wires
from tier import Real, dump_requests, installed_bin, real_desk  # noqa: F401

pytestmark = pytest.mark.real_agents


@pytest.mark.parametrize("real", ["claude"], indirect=True)
def test_a_failed_check_reopens_and_passes_after_the_agents_next_turn(
    real: Real, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The stand-in's one tool call writes the file the check looks for, in the role's workdir.
    monkeypatch.setattr(wires, "PROBE", "echo deskd-probe > built.txt")
    real.api.mode = "tool"
    desk = real.desk
    task_id = desk.json(
        "task", "add", "build it", "--for", "alpha", "--done-when", "grep -q deskd-probe built.txt"
    )["id"]
    desk.ok("task", "done", str(task_id), "--by", "alpha")  # said done; nothing was built
    out = real.tick()
    assert [c["outcome"] for c in out["checks"]] == ["failed"]
    launch = real.launched(out)
    assert (launch["launch_status"], launch["landed_at"] is not None) == ("finished", True)
    calls = [c for c in real.api.model_calls() if "its done-when check failed" in c.text]
    assert calls and "built.txt" in calls[0].text, dump_requests(real.api)
    assert (real.work / "built.txt").read_text().strip() == "deskd-probe"  # the turn did it

    desk.ok("task", "done", str(task_id), "--by", "alpha")
    desk.advance(minutes=1)
    assert [c["outcome"] for c in real.tick()["checks"]] == ["passed"]
    (row,) = [t for t in desk.json("task", "list", "--all") if t["id"] == task_id]
    assert row["status"] == "done" and row["check"]["state"] == "passed"
