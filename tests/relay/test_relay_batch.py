"""The relay's writers: the hook calls waiting for deskd's write lock share one transaction,
each in its own savepoint, and a writer keeps its place in the server's queue for the lock."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import Desk
from deskd.store.db import transaction

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hook"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from hook_helpers import HookDesk, fixture
from test_relay import (
    BOUND_S,
    ended,
    hook_behind_the_write_lock,
    hook_request,
    relay,
    send,
    start_relay,
)

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
__all__ = ["relay"]  # the fixture, used by name


def relay_status(desk: Desk) -> dict[str, Any]:
    """The relay's counters: calls served, write transactions they took, calls waiting."""
    (status,) = send(desk, {"status": True})
    return status


def session_id(n: int) -> str:
    return f"3f1c9a7e-5b2d-4c8e-9a61-0d2e7b4f8c{n:02d}"


@pytest.fixture
def one_writer(desk: Desk) -> Iterator[subprocess.Popen[bytes]]:
    proc = start_relay(desk, "--connections", "1")
    yield proc
    ended(proc, desk.home / "run")


def test_calls_waiting_for_the_write_lock_share_one_transaction_each_kept_apart(
    desk: Desk, one_writer: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    import socket

    hd = HookDesk(desk)
    hd.enqueue("alpha", "disk 91%", priority="urgent")
    hd.enqueue("beta", "review #12", priority="urgent")
    calls = [("alpha", 0), ("beta", 1), ("alpha", 2)]
    hooks = []
    holder = desk.db()
    with transaction(holder):  # every call waits behind deskd's write lock
        for role, n in calls:
            stdin = tmp_path / f"payload-{n}.json"
            payload = fixture("post_tool_use", session_id=session_id(n))
            stdin.write_text(json.dumps(payload), encoding="utf-8")
            hooks.append(
                subprocess.Popen(
                    [str(Path(sys.executable).parent / "deskd-session-hook")],
                    env=hd.env(role),
                    stdin=stdin.open("rb"),
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
            )
        # A fourth caller gone before its answer: its call must leave nothing behind, and
        # take nothing from the others.
        gone = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        gone.connect(str(desk.home / "run" / "relay.sock"))
        request = hook_request(desk, "beta", fixture("post_tool_use", session_id=session_id(9)))
        gone.sendall(json.dumps(request).encode() + b"\n")
        gone.close()
        deadline = time.monotonic() + BOUND_S
        while relay_status(desk)["waiting"] < 4:
            assert time.monotonic() < deadline, relay_status(desk)
            time.sleep(0.02)
    outs = [hook.communicate(timeout=BOUND_S) for hook in hooks]
    assert [err for _, err in outs] == [b"", b"", b""]
    contexts = [json.loads(out)["hookSpecificOutput"]["additionalContext"] for out, _ in outs]
    assert "disk 91%" in contexts[0] and "review #12" in contexts[1]
    assert "disk 91%" in contexts[2]  # another session of alpha: shown there too
    status = relay_status(desk)
    assert (status["calls"], status["transactions"], status["waiting"]) == (4, 1, 0)
    alpha = {s["native_id"]: s["heartbeats"] for s in hd.sessions()}
    beta = {s["native_id"]: s["heartbeats"] for s in hd.sessions("beta")}
    assert alpha == {session_id(0): 1, session_id(2): 1}
    assert beta == {session_id(1): 1}  # the gone caller's call was rolled back alone
    assert hd.log_text() == ""


def test_a_writer_waits_its_turn_for_the_write_lock_without_leaving_the_queue(
    desk: Desk, relay: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    """A lock wait that times out and asks again goes to the back of the server's queue: the
    relay's writer asks once, for as long as its first call may wait (not the hook's 1.5 s)."""
    import re

    hd = HookDesk(desk)
    with hook_behind_the_write_lock(desk, hd, tmp_path) as (hook, holder):
        (row,) = holder.raw_execute(  # type: ignore[attr-defined]
            "SELECT query FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
        ).fetchall()
    hook.communicate(timeout=BOUND_S)
    waited = re.search(r"lock_timeout = (\d+)", row[0])
    assert waited is not None, row[0]
    assert int(waited.group(1)) > 1500
