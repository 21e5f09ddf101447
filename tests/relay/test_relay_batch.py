"""The relay's writers: each hook call in a transaction of its own, so a call for one role
never waits for another role's; and a relay of another deskd version refuses every call (the
hook works alone) and exits, so an upgrade takes effect at the next tool call."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import Desk

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hook"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from hook_helpers import HookDesk, fixture
from test_relay import BOUND_S, ended, hook_request, relay, send, start_relay

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
__all__ = ["relay"]  # the fixture, used by name


def relay_status(desk: Desk) -> dict[str, Any]:
    """The relay's counters: calls served, write transactions they took, calls waiting."""
    (status,) = send(desk, {"status": True})
    return status


def test_a_call_for_one_role_is_written_while_another_roles_writer_holds_its_lock(
    desk: Desk, relay: subprocess.Popen[bytes]
) -> None:
    hd = HookDesk(desk)
    hd.enqueue("beta", "review #12", priority="urgent")
    holder = desk.db()
    holder.begin(write=True, roles=["alpha"])  # as alpha's hook on another host would
    try:
        answers = send(desk, hook_request(desk, "beta", fixture("post_tool_use")))
    finally:
        holder.execute("ROLLBACK")
    assert "review #12" in str(answers[0]["out"]) and answers[-1] == {"done": True, "notes": []}
    assert len(hd.sessions("beta")) == 1
    status = relay_status(desk)
    assert (status["calls"], status["transactions"], status["waiting"]) == (1, 1, 0)


def test_a_call_of_another_version_is_refused_and_the_relay_exits(desk: Desk) -> None:
    hd = HookDesk(desk)
    hd.enqueue("alpha", "disk 91%")
    proc = start_relay(desk)
    try:
        old = dict(hook_request(desk, "alpha", fixture("post_tool_use")), version="0.0.1")
        (answer,) = send(desk, old)
        assert "0.0.1" in answer["refused"]
        assert proc.wait(timeout=BOUND_S) == 0  # gone: the next tick starts a current one
    finally:
        ended(proc, desk.home / "run")
    assert hd.sessions() == []  # nothing of the refused call was written
    run = hd.hook(fixture("post_tool_use"))  # no relay now: the hook works alone
    assert "disk 91%" in run.context()
    assert json.loads(run.stdout)["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
