"""The relay's writers: each hook call in a transaction of its own, on a pooled connection.

A call's work is the hook's own (``hook.surface``: the role check, then one write transaction
naming the role), so it costs the server as many round trips as the hook going direct, and on
PostgreSQL waits only for its role's other writes and the desk-wide ones
(docs/architecture.md, "What is serialized"): ``size`` writers write for ``size`` roles at once.

Each call keeps the answers it had alone (``relay.server``): its ``out`` line is sent
last before the COMMIT; a call that fails is rolled back and answered (``refused`` when
nothing of it was kept and the hook may work alone, ``skip`` or ``error`` otherwise); ``done``
comes only after the COMMIT. A call whose hook stopped waiting (``abandon``) is never sent
``out``: the hook works alone, so no call is done twice.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from deskd import hook
from deskd.errors import StoreBusy
from deskd.store.dialect import Connection


def line(said: object) -> bytes:
    """One line of the relay's protocol, either way: a JSON value and a newline (the session
    hook writes its own, not to import this module on every tool call)."""
    return json.dumps(said).encode() + b"\n"


class Busy(Exception):
    """No pooled connection came free in time."""


class TooLate(Exception):
    """The call is past its deadline, or its hook stopped waiting: rolled back, no ``out``."""


class Pool:
    """At most ``size`` connections, opened when first needed, reused, dropped when broken."""

    def __init__(self, opener: Callable[[], Connection], size: int) -> None:
        self._open = opener
        self._slots = threading.BoundedSemaphore(size)
        self._free: list[Connection] = []
        self._lock = threading.Lock()

    def take(self, wait_s: float) -> Connection:
        if not self._slots.acquire(timeout=wait_s):
            raise Busy(f"no connection free within {wait_s:g} s")
        with self._lock:
            conn = self._free.pop() if self._free else None
        if conn is not None:
            return conn
        try:
            return self._open()
        except BaseException:
            self._slots.release()
            raise

    def give(self, conn: Connection, *, broken: bool) -> None:
        if broken:
            try:
                conn.close()
            except Exception:
                pass
        else:
            with self._lock:
                self._free.append(conn)
        self._slots.release()

    def close(self) -> None:
        with self._lock:
            free, self._free = self._free, []
        for conn in free:
            conn.close()


def broken(conn: Connection) -> bool:
    raw = getattr(conn, "raw", None)
    return raw is None or bool(raw.closed or raw.broken)


@dataclass
class Call:
    """One hook call waiting for a writer; ``answer`` holds the lines after ``out``."""

    client: socket.socket
    deadline: float
    env: dict[str, str]
    role: str
    event: str
    payload: dict[str, Any]
    now: int
    native: str | None
    notes: list[str] = field(default_factory=list)
    said: list[str] = field(default_factory=list)
    state: str = "waiting"
    """``waiting``, ``out`` (sent: the call is the relay's), ``abandoned`` (the hook's)."""
    answer: list[dict[str, Any]] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def finish(self, *lines: dict[str, Any]) -> None:
        self.answer = list(lines)
        self.done.set()

    def abandon(self) -> bool:
        """Give the call back to its hook unless ``out`` was sent (then True: wait on)."""
        with self.lock:
            if self.state == "waiting":
                self.state = "abandoned"
            return self.state == "out"

    def send_out(self) -> None:
        # Last thing inside the call's savepoint, as the hook alone prints before its COMMIT.
        with self.lock:
            if self.state != "waiting" or time.monotonic() > self.deadline:
                raise TooLate
            text = self.said[-1] if self.said else None
            self.client.sendall(line({"out": text}))
            self.state = "out"


class Writers:
    """``size`` writer threads, each with one pooled connection, over one queue of calls."""

    def __init__(self, opener: Callable[[], Connection], size: int, refused: str) -> None:
        self.pool = Pool(opener, size)
        self.size = size
        self.refused = refused
        self.queue: deque[Call] = deque()
        self.cond = threading.Condition()
        self.stopping = threading.Event()
        self.calls = 0
        self.transactions = 0
        self.waiting = 0

    def start(self) -> None:
        for _ in range(self.size):
            threading.Thread(target=self._run, daemon=True).start()

    def stop(self) -> None:
        self.stopping.set()
        with self.cond:
            self.cond.notify_all()
        self.pool.close()

    def submit(self, call: Call) -> None:
        with self.cond:
            self.queue.append(call)
            self.waiting += 1
            self.cond.notify()

    def status(self) -> dict[str, int]:
        with self.cond:
            return {"calls": self.calls, "transactions": self.transactions,
                    "waiting": self.waiting}  # fmt: skip

    def _done(self, transactions: int = 0) -> None:
        with self.cond:
            self.calls += 1
            self.waiting -= 1
            self.transactions += transactions

    def _run(self) -> None:
        while not self.stopping.is_set():
            with self.cond:
                while not self.queue and not self.stopping.is_set():
                    self.cond.wait(1.0)
                if self.stopping.is_set():
                    return
                first = self.queue.popleft()
            self._write(first)

    def _refuse(self, call: Call, why: str) -> None:
        call.finish({"refused": why})
        self._done()

    def _write(self, call: Call) -> None:
        try:
            conn = self.pool.take(max(0.0, call.deadline - time.monotonic()))
        except Busy:
            return self._refuse(call, self.refused)
        except hook.Skip as exc:
            call.finish({"skip": str(exc)})
            return self._done()
        except Exception as exc:  # cannot connect: the hook tries alone
            return self._refuse(call, f"{type(exc).__name__}: {exc}")
        try:
            hook.surface(conn, call.payload, event=call.event, role=call.role,
                         native=call.native, now=call.now, env=call.env,
                         out=lambda _event, text: call.said.append(text),
                         note=call.notes.append, confirm=call.send_out)  # fmt: skip
        except hook.Skip as exc:
            call.finish({"skip": str(exc)})
        except (TooLate, StoreBusy):
            call.finish({"refused": self.refused})
        except Exception as exc:
            if call.state == "out":  # said, not committed: never done twice
                call.finish({"error": f"commit failed: {type(exc).__name__}: {exc}"})
            elif broken(conn):  # nothing of it can have been kept: the hook works alone
                call.finish({"refused": f"{type(exc).__name__}: {exc}"})
            else:
                call.finish({"error": f"{type(exc).__name__}: {exc}"})
        else:
            call.finish({"done": True, "notes": call.notes})
            self.pool.give(conn, broken=False)
            return self._done(transactions=1)
        self.pool.give(conn, broken=broken(conn))
        self._done()
