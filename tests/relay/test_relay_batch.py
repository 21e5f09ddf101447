"""The relay's writers: each hook call in a transaction of its own, so a call for one role
never waits for another role's; and a relay of another deskd version refuses every call (the
hook works alone) and exits, so an upgrade takes effect at the next tool call."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import Desk

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hook"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from hook_helpers import HookDesk, fixture
from test_relay import BOUND_S, ended, hook_request, relay, send, start_relay

from deskd.relay.server import REFUSED

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


def relay_backends(conn: Any) -> list[int]:
    """The pids of the server sessions on the desk's database other than ``conn``'s."""
    rows = conn.raw_execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
        " AND pid <> pg_backend_pid()"
    ).fetchall()
    return sorted(int(row[0]) for row in rows)


def test_a_pooled_connection_the_server_ended_is_replaced_and_the_next_call_is_relayed(
    desk: Desk,
) -> None:
    hd = HookDesk(desk)
    hd.enqueue("alpha", "disk 91%")
    hd.enqueue("beta", "review #12")
    proc = start_relay(desk, "--connections", "1")
    admin = desk.db()
    try:
        first = send(desk, hook_request(desk, "alpha", fixture("post_tool_use")))
        assert "disk 91%" in str(first[0]["out"]) and first[-1] == {"done": True, "notes": []}
        (pooled,) = relay_backends(admin)
        admin.raw_execute("SELECT pg_terminate_backend(%s)", (pooled,))
        deadline = time.monotonic() + BOUND_S
        while pooled in relay_backends(admin):
            assert time.monotonic() < deadline, "the server never ended the pooled session"
            time.sleep(0.02)
        second = send(desk, hook_request(desk, "beta", fixture("post_tool_use")))
        assert "review #12" in str(second[0]["out"]) and second[-1] == {"done": True, "notes": []}
        assert relay_backends(admin) not in ([], [pooled])  # another connection in its place
        status = relay_status(desk)
        assert (status["calls"], status["transactions"]) == (2, 2)
    finally:
        ended(proc, desk.home / "run")
    assert len(hd.sessions("alpha")) == 1 and len(hd.sessions("beta")) == 1


def test_a_relay_whose_server_does_not_answer_refuses_and_the_hook_works_alone(
    desk: Desk,
) -> None:
    """No connection made: each call is refused at its deadline, and the hook works alone.
    (Calls were refused at once for 30 s after one found the server "down": in a busy wave
    a connect that timed out under load sent every hook of the host to work alone.)"""
    import socket

    with socket.socket() as free:  # a port nothing listens on: refused at once
        free.bind(("127.0.0.1", 0))
        dead = f"postgresql://deskd@127.0.0.1:{free.getsockname()[1]}/deskd"
    proc = start_relay(desk, DESKD_DB=dead)
    try:
        for role in ("alpha", "beta"):
            answers = send(desk, dict(hook_request(desk, role, fixture("post_tool_use")), db=dead))
            assert answers == [{"refused": REFUSED}]
        assert relay_status(desk)["transactions"] == 0
    finally:
        ended(proc, desk.home / "run")
