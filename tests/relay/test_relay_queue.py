"""The relay's deadline: a call not answered by its deadline is refused at that deadline, by
the accept loop, while every thread is still busy (one still queued for a thread, or one a
thread still works on): the hook then works alone at once, instead of waiting out its own
longer wait for an answer that would come too late."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from conftest import Desk

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hook"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from hook_helpers import HookDesk, fixture
from test_relay import BOUND_S, ended, hook_request, send, start_relay

from deskd.relay.server import REFUSED

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)


def first_answer(desk: Desk, request: dict[str, Any]) -> dict[str, Any]:
    """The relay's first line for ``request``, read as the hook reads it (a refused call's
    socket is closed with the request unread: the next read would be a reset, not an end)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(BOUND_S)
        sock.connect(str(desk.home / "run" / "relay.sock"))
        sock.sendall(json.dumps(request).encode() + b"\n")
        with sock.makefile("rb") as reader:
            answer: dict[str, Any] = json.loads(reader.readline())
    return answer


@contextmanager
def every_thread_held(desk: Desk) -> Iterator[threading.Event]:
    """A client that keeps the relay's one thread reading its request (a byte at a time, no
    end of line) until the block ends or ``BOUND_S`` passed; the event is set while it
    still holds the thread."""
    holding, release = threading.Event(), threading.Event()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(desk.home / "run" / "relay.sock"))

    def trickle() -> None:
        holding.set()
        deadline = time.monotonic() + BOUND_S
        while not release.wait(0.2) and time.monotonic() < deadline:
            sock.sendall(b" ")
        holding.clear()

    holder = threading.Thread(target=trickle)
    holder.start()
    try:
        yield holding
    finally:
        release.set()
        holder.join()
        sock.close()


def test_it_refuses_a_queued_call_at_its_deadline_while_every_thread_is_busy(
    desk: Desk,
) -> None:
    hd = HookDesk(desk)
    hd.enqueue("alpha", "disk 91%")
    proc = start_relay(desk, "--connections", "1")
    try:
        with every_thread_held(desk) as holding:
            answer = first_answer(desk, hook_request(desk, "beta", fixture("post_tool_use")))
            # Answered by the relay while its one thread was still taken: never by a thread
            # reaching the call after the deadline (then the holder would have let go).
            assert answer == {"refused": REFUSED} and holding.is_set()
            run = hd.hook(fixture("post_tool_use"))  # queued too: refused, then works alone
            assert "disk 91%" in run.context() and holding.is_set()
        (status,) = send(desk, {"status": True})
    finally:
        ended(proc, desk.home / "run")
    # The two queued calls, and the holder's own, refused at its deadline while its thread
    # still read it: a call in flight is refused at its deadline too.
    assert (status["late"], status["transactions"]) == (3, 0)
    assert len(hd.sessions("alpha")) == 1 and hd.sessions("beta") == []
