"""The relay's writers: the hook calls waiting for deskd's write lock share one transaction.

Every write transaction of every host takes the desk's one write lock (SQLite's single
writer, kept on PostgreSQL), so at a few hundred agents the hooks' transactions queue for
it. A relay's writer takes the lock once for all the calls that came meanwhile: it begins a
write transaction for the first call waiting, and once the lock is its own runs that call
and every other waiting (up to ``MAX_BATCH``), each in its own savepoint, then commits.

Each call keeps the answers it had alone (``deskd.adapters.relay``): its ``out`` line is sent
last inside its savepoint; a call that fails is rolled back to its savepoint and answered
alone (``refused`` when nothing of it was kept and the hook may work alone, ``skip`` or
``error`` otherwise), the others go on; ``done`` comes only after the COMMIT. A call whose
hook stopped waiting (``abandon``) is never sent ``out``: the hook works alone, so no call is
done twice.
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
from deskd.store.db import transaction
from deskd.store.dialect import Connection


def line(said: object) -> bytes:
    """One line of the relay's protocol, either way: a JSON value and a newline (the session
    hook writes its own, not to import this module on every tool call)."""
    return json.dumps(said).encode() + b"\n"


MAX_BATCH = 64
"""Calls one transaction runs at most: each is a few statements, so a full batch holds the
write lock for well under a second even on a loaded host."""


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

    def _done(self, calls: int = 1, transactions: int = 0) -> None:
        with self.cond:
            self.calls += calls
            self.waiting -= calls
            self.transactions += transactions

    def _run(self) -> None:
        while not self.stopping.is_set():
            with self.cond:
                while not self.queue and not self.stopping.is_set():
                    self.cond.wait(1.0)
                if self.stopping.is_set():
                    return
                first = self.queue.popleft()
            self._batch(first)

    def _refuse(self, call: Call, why: str) -> None:
        call.finish({"refused": why})
        self._done()

    def _batch(self, first: Call) -> None:
        try:
            conn = self.pool.take(max(0.0, first.deadline - time.monotonic()))
        except Busy:
            return self._refuse(first, self.refused)
        except hook.Skip as exc:
            first.finish({"skip": str(exc)})
            return self._done()
        except Exception as exc:  # cannot connect: the hook tries alone
            return self._refuse(first, f"{type(exc).__name__}: {exc}")
        try:
            while True:
                left_ms = int((first.deadline - time.monotonic()) * 1000)
                if left_ms <= 0:
                    self.pool.give(conn, broken=broken(conn))
                    return self._refuse(first, self.refused)
                # Ask once, for all the time the first call has: a wait that times out and
                # asks again goes to the back of the server's queue for the lock, behind
                # every executor and tick that asked meanwhile.
                conn.busy_ms = max(left_ms, 100)
                try:
                    conn.begin(write=True)
                    break
                except StoreBusy:
                    continue  # rolled back before anything ran: the same call, tried again
                finally:
                    conn.busy_ms = hook.BUSY_MS
        except BaseException as exc:
            self.pool.give(conn, broken=True)
            return self._refuse(first, f"{type(exc).__name__}: {exc}")
        with self.cond:  # the lock is ours: everything waiting meanwhile comes along
            batch = [first]
            while self.queue and len(batch) < MAX_BATCH:
                batch.append(self.queue.popleft())
        self._write(conn, batch)

    def _write(self, conn: Connection, batch: list[Call]) -> None:
        kept: list[Call] = []
        ran = 0
        try:
            for call in batch:
                ran += 1
                if self._one(conn, call):
                    kept.append(call)
                elif broken(conn):
                    raise ConnectionError("the server connection broke")
            conn.execute("COMMIT")
        except BaseException as exc:
            self.pool.give(conn, broken=True)
            for call in kept:  # sent ``out``, not committed: said, never done twice
                call.finish({"error": f"commit failed: {type(exc).__name__}: {exc}"})
            with self.cond:  # never started: they wait for the next transaction
                self.queue.extendleft(reversed(batch[ran:]))
            self._done(calls=len(kept))
            return
        self.pool.give(conn, broken=False)
        for call in kept:
            call.finish({"done": True, "notes": call.notes})
        self._done(calls=len(kept), transactions=1)

    def _one(self, conn: Connection, call: Call) -> bool:
        """Run one call in its savepoint; True when it is kept (answered after COMMIT)."""
        try:
            with transaction(conn):  # a savepoint: a failure rolls back this call alone
                hook.surface(conn, call.payload, event=call.event, role=call.role,
                             native=call.native, now=call.now, env=call.env,
                             out=lambda _event, text: call.said.append(text),
                             note=call.notes.append, confirm=call.send_out)  # fmt: skip
        except hook.Skip as exc:
            call.finish({"skip": str(exc)})
        except (TooLate, StoreBusy):
            call.finish({"refused": self.refused})
        except Exception as exc:
            if call.state == "out":  # its RELEASE failed: the COMMIT will say so
                return True
            if broken(conn):  # nothing of it can have been kept: the hook works alone
                call.finish({"refused": f"{type(exc).__name__}: {exc}"})
            else:
                call.finish({"error": f"{type(exc).__name__}: {exc}"})
        else:
            return True
        self._done()
        return False
