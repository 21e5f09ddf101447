"""The relay's writers: each hook call in a transaction of its own, on a connection of a
``psycopg_pool`` pool, in the thread that read the call (no hand-off to another thread).

A call's work is the hook's own (``hook.surface``: the role check, then one write transaction
naming the role), so it costs the server as many round trips as the hook going direct, and on
PostgreSQL waits only for its role's other writes and the desk-wide ones
(docs/architecture.md, "What is serialized"): ``size`` connections write for ``size`` roles at
once, and a call waits for a free one no longer than its deadline.

Each call keeps the answers it had alone (``relay.server``): its ``out`` line is sent
last before the COMMIT; a call that fails is rolled back and answered (``refused`` when
nothing of it was kept and the hook may work alone, ``skip`` or ``error`` otherwise); ``done``
comes only after the COMMIT. A call past its deadline is never sent ``out``: its hook may have
stopped waiting and work alone, so no call is done twice.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from deskd import hook
from deskd.errors import StoreBusy

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool


def line(said: object) -> bytes:
    """One line of the relay's protocol, either way: a JSON value and a newline (the session
    hook writes its own, not to import this module on every tool call)."""
    return json.dumps(said).encode() + b"\n"


class TooLate(Exception):
    """The call is past its deadline: rolled back, no ``out``."""


@dataclass
class Call:
    """One hook call's client and deadline, and what ``hook.surface`` printed and noted."""

    client: socket.socket
    deadline: float
    said: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    sent: bool = False
    """``out`` went: the call is the relay's (a failure now is an error, never a refusal)."""

    def send_out(self) -> None:
        # Last thing before the COMMIT, as the hook alone prints before its COMMIT.
        if time.monotonic() > self.deadline:
            raise TooLate
        self.client.sendall(line({"out": self.said[-1] if self.said else None}))
        self.sent = True


class Writers:
    """At most ``size`` server connections, opened when first needed, and the calls' counters."""

    def __init__(self, url: str, size: int, refused: str) -> None:
        from psycopg_pool import ConnectionPool

        from deskd.store.pg import connect_settings

        self.url = url
        self.refused = refused
        # A broken connection given back is dropped and replaced by the pool; one past an
        # hour is replaced, and those past the first close after ten idle minutes.
        self.pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            url,
            kwargs=connect_settings(hook.BUSY_MS),
            min_size=1,
            max_size=size,
            open=False,
            name="deskd-relay",
        )
        self.lock = threading.Lock()
        self.calls = 0
        self.transactions = 0
        self.waiting = 0

    def start(self) -> None:
        self.pool.open()

    def stop(self) -> None:
        self.pool.close()

    def status(self) -> dict[str, int]:
        with self.lock:
            return {"calls": self.calls, "transactions": self.transactions,
                    "waiting": self.waiting}  # fmt: skip

    def take(self, deadline: float) -> psycopg.Connection[Any]:
        """A pooled connection the server has not ended while it sat idle (then its last
        words, a FATAL message, wait unread on the socket: a select, no round trip)."""
        while True:
            raw = self.pool.getconn(timeout=max(0.0, deadline - time.monotonic()))
            if not select.select([raw], [], [], 0)[0]:
                return raw
            raw.close()  # given back closed: the pool opens another in its place
            self.pool.putconn(raw)

    def write(self, call: Call, payload: Mapping[str, Any], **surface: Any) -> dict[str, Any]:
        """Run ``hook.surface`` for ``call``: the line that follows its ``out`` (or replaces it)."""
        from psycopg_pool import PoolTimeout

        from deskd.store.pg import PgConnection

        with self.lock:
            self.waiting += 1
        try:
            raw = self.take(call.deadline)
        except PoolTimeout:
            return self._done({"refused": self.refused})
        try:
            hook.surface(PgConnection(raw, url=self.url, busy_ms=hook.BUSY_MS), payload,
                         out=lambda _event, text: call.said.append(text),
                         note=call.notes.append, confirm=call.send_out, **surface)  # fmt: skip
        except hook.Skip as exc:
            answer: dict[str, Any] = {"skip": str(exc)}
        except (TooLate, StoreBusy):
            answer = {"refused": self.refused}
        except Exception as exc:
            said = f"{type(exc).__name__}: {exc}"
            if call.sent:  # said, not committed: never done twice
                answer = {"error": f"commit failed: {said}"}
            elif raw.broken or raw.closed:  # nothing of it can have been kept: the hook works alone
                answer = {"refused": said}
            else:
                answer = {"error": said}
        else:
            answer = {"done": True, "notes": call.notes}
        finally:
            self.pool.putconn(raw)  # rolled back if the call failed inside its transaction
        return self._done(answer, transactions=int("done" in answer))

    def _done(self, answer: dict[str, Any], transactions: int = 0) -> dict[str, Any]:
        with self.lock:
            self.calls += 1
            self.waiting -= 1
            self.transactions += transactions
        return answer
