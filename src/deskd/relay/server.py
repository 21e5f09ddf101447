"""The host's relay for the session hook on a PostgreSQL desk (``deskd relay``); how a call
flows, and why there is one, is the package's docstring (``deskd/relay/__init__.py``).

It grants nothing the hook lacks: only the desk's user reaches ``run/relay.sock`` (0600 in
the 0700 ``run/``, and the peer's uid is checked), and a request passes the hook's own checks
(session id, role enabled). A call without its ``out`` line by ``ANSWER_BY_S`` after its
accept is refused then by the accept loop (still queued, or waiting on the server: rolled
back), so a hook never waits on the relay past that, nor repeats a relayed call.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deskd import __version__, hook
from deskd.errors import StoreBusy
from deskd.paths import db_file_str, home_str

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

SOCKET = hook.RELAY_SOCKET
LOCK = "relay.lock"
"""``run/relay.lock``: held (flock) by the serving relay, and holds its pid for ``stop``."""
POOL_SIZE = 4
"""Server connections a relay keeps (a ``psycopg_pool`` pool), and threads answering calls:
each writes one call at a time; calls of different roles do not wait for each other."""
IDLE_S = 600.0
"""A relay with no request for this long exits (the next executing tick starts another)."""
ANSWER_BY_S = 6.0
"""A request not answered this long after its accept is refused and rolled back (the hook then
works alone). 8 s inside the hook's own wait (``hook.RELAY_WAIT_S``): the relay's ``out``
line reaches a hook still listening, so a call is never done by both."""
READ_S = 10.0
"""How long a connection may take to send its request line."""
MAX_REQUEST = 1 << 20
REFUSED = f"not done within {ANSWER_BY_S:g} s (the write lock or the pool was busy)"


class TooLate(Exception):
    """The call is past its deadline: rolled back, no ``out``."""


def line(said: object) -> bytes:
    """One line of the relay's protocol: a JSON value and a newline (the hook writes its own)."""
    return json.dumps(said).encode() + b"\n"


@dataclass
class Call:
    """One hook call's client and deadline, and what ``hook.surface`` printed and noted."""

    client: socket.socket
    deadline: float
    said: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    sent: bool = False
    """``out`` went: the call is the relay's (a failure now is an error, never a refusal)."""
    late: bool = False  # refused at its deadline (``refuse``): nothing of it commits
    settled: threading.Lock = field(default_factory=threading.Lock)

    def send_out(self) -> None:
        # Last thing before the COMMIT, as the hook alone prints before its COMMIT.
        with self.settled:
            if self.late or time.monotonic() > self.deadline:  # its loop may be descheduled
                raise TooLate
            self.client.sendall(line({"out": self.said[-1] if self.said else None}))
            self.sent = True

    def refuse(self) -> bool:
        """Refuse the call at its deadline unless its ``out`` went; whether it was refused."""
        with self.settled:
            if self.sent:
                return False
            self.late = True
        try:
            self.client.send(line({"refused": REFUSED}))  # nothing sent before: never blocks
        except OSError:
            pass  # the hook is gone
        return True


class Relay:
    """One desk folder's relay: its desk file, database, pool and counters."""

    def __init__(self, env: Mapping[str, str], *, size: int = POOL_SIZE) -> None:
        from psycopg_pool import ConnectionPool

        from deskd.store.pg import connect_settings

        self.env = dict(env)
        self.db = db_file_str(self.env)
        self.desk = hook.desk_path(self.env)
        self.run = os.path.join(home_str(self.env), "run")
        self.stopping = threading.Event()
        """Set by SIGTERM, or by a call of another deskd version: the relay exits."""
        self.last = time.monotonic()
        """When the last request came (a tick's probe is not one: it keeps no relay alive)."""
        # All opened at the start and kept, each connect given a call's whole wait (not the
        # hook's 2 s): a wave's executors take the free slots, and slow the server's connects,
        # just when its hooks need more (docs/performance.md, "The relay's deadline"). One
        # broken, or past an hour, is replaced.
        self.pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            self.db,
            kwargs={**connect_settings(hook.BUSY_MS), "connect_timeout": int(ANSWER_BY_S)},
            min_size=size,
            max_size=size,
            open=False,
            name="deskd-relay",
        )
        self.lock = threading.Lock()
        self.counts = {"calls": 0, "transactions": 0, "waiting": 0, "late": 0}

    def answer(self, call: Call) -> None:
        """Serve one connection: one request, answered as ``hook.relayed`` reads it (the
        accept loop refuses it at its deadline, ``ANSWER_BY_S`` after its accept)."""
        call.client.settimeout(READ_S)
        reader = call.client.makefile("rb")
        try:
            text = reader.readline(MAX_REQUEST)
            if not text.endswith(b"\n"):
                return  # a probe (``answering``), or a request cut off: nothing to do
            self.last = time.monotonic()
            answer = line(self.serve(json.loads(text), call))
            if not call.late:
                call.client.sendall(answer)
        except (OSError, ValueError):
            pass  # the hook is gone; anything not yet answered with ``out`` was rolled back
        finally:
            reader.close()
            call.client.close()

    def serve(self, request: Any, call: Call) -> dict[str, Any]:
        """The line after ``out`` (sent by ``Call.send_out`` inside the transaction), or
        instead of it."""
        if request == {"status": True}:
            with self.lock:
                return dict(self.counts)
        problem = self.refusal(request)
        if problem is not None:
            return {"refused": problem}
        env = dict(self.env)
        for key, name in (("DESKD_WAKE_TOKEN", "token"), ("DESKD_SESSION_ID", "session")):
            env.pop(key, None)
            if request.get(name):
                env[key] = str(request[name])
        env["DESKD_ROLE"] = request["role"]
        try:
            native = hook.session_of(request["payload"], event=request["event"], env=env)
        except hook.Skip as exc:
            return {"skip": str(exc)}
        return self.write(call, request, native=native, env=env)

    def refusal(self, request: Any) -> str | None:
        """Why this request is not one the relay serves (then the hook works alone)."""
        if not isinstance(request, dict):
            return "not a JSON object"
        kinds = dict(role=str, event=str, now=int, payload=dict, db=str, desk=str, version=str)
        for key, kind in kinds.items():
            if not isinstance(request.get(key), kind):
                return f"{key} missing or not a {kind.__name__}"
        if not isinstance(request["payload"].get("hook_event_name"), str):
            return "payload without hook_event_name"
        if request["db"] != self.db or request["desk"] != self.desk:
            return "another desk or database than this relay's"
        if request["version"] != __version__:
            self.stopping.set()  # started before an upgrade: exit, the next tick starts anew
            return f"deskd {request['version']} called a relay of deskd {__version__}"
        return None

    def take(self, deadline: float) -> psycopg.Connection[Any]:
        """A pooled connection the server has not ended while it sat idle (then its last
        words, a FATAL message, wait unread on the socket: a select, no round trip)."""
        while True:
            raw = self.pool.getconn(timeout=max(0.0, deadline - time.monotonic()))
            if not select.select([raw], [], [], 0)[0]:
                return raw
            raw.close()  # given back closed: the pool opens another in its place
            self.pool.putconn(raw)

    def write(self, call: Call, request: Mapping[str, Any], **surface: Any) -> dict[str, Any]:
        """Run ``hook.surface`` for ``call`` in a transaction of its own on a pooled connection
        (the hook's own round trips and locks: docs/architecture.md, "What is serialized");
        ``refused`` when nothing of it was kept and the hook may work alone."""
        from psycopg_pool import PoolTimeout

        from deskd.store.pg import PgConnection

        with self.lock:
            self.counts["waiting"] += 1
        try:
            raw = self.take(call.deadline)
        except PoolTimeout:
            return self.done({"refused": REFUSED})
        try:
            hook.surface(
                PgConnection(raw, url=self.db, busy_ms=hook.BUSY_MS),
                request["payload"],
                event=request["event"],
                role=request["role"],
                now=request["now"],
                out=lambda _event, text: call.said.append(text),
                note=call.notes.append,
                confirm=call.send_out,
                **surface,
            )
        except hook.Skip as exc:
            answer: dict[str, Any] = {"skip": str(exc)}
        except (TooLate, StoreBusy):
            answer = {"refused": REFUSED}
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
        return self.done(answer)

    def done(self, answer: dict[str, Any]) -> dict[str, Any]:
        """``answer``, counted (``{"status": true}`` answers the counts)."""
        with self.lock:
            self.counts["calls"] += 1
            self.counts["waiting"] -= 1
            self.counts["transactions"] += "done" in answer
        return answer


def peer_uid(client: socket.socket) -> int:
    creds = client.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


def serve(env: Mapping[str, str], *, size: int = POOL_SIZE, idle_s: float = IDLE_S) -> int:
    """Serve until idle for ``idle_s`` (or SIGTERM); 0 at once when another relay serves."""
    import fcntl

    relay = Relay(env, size=size)
    # Before the socket answers: a SIGTERM from the moment it does (``stop`` right after a
    # tick saw it answer) must end the loop below, never kill the process with its socket.
    stopping = relay.stopping
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    os.makedirs(relay.run, mode=0o700, exist_ok=True)
    lock_fd = os.open(os.path.join(relay.run, LOCK), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(lock_fd)
        return 0
    os.ftruncate(lock_fd, 0)
    os.write(lock_fd, f"{os.getpid()}\n".encode())
    path = os.path.join(relay.run, SOCKET)
    if os.path.lexists(path):
        os.unlink(path)  # a dead relay's: the lock says none serves
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)  # created 0600: no moment where another user could connect
    try:
        server.bind(path)
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    mine = os.stat(path).st_ino
    server.listen(128)
    relay.pool.open()
    uid = os.getuid()
    # One thread a pooled connection, started once: a thread started for every call cost
    # the relay a fifth of its CPU (docs/performance.md, "The hook relay on psycopg_pool").
    threads = ThreadPoolExecutor(size, thread_name_prefix="relay")
    queued: deque[tuple[Call, Future[None]]] = deque()
    sys.stderr.write(f"relay pid={os.getpid()} serving {path}\n")
    sys.stderr.flush()
    try:
        while not stopping.is_set():
            server.settimeout(refuse_late(queued, relay, now=time.monotonic()))
            try:
                client, _ = server.accept()
            except TimeoutError:
                if not queued and time.monotonic() - relay.last > idle_s:
                    break
                if not _still_ours(path, mine):
                    break  # the desk folder went away, or another relay took over
                continue
            if peer_uid(client) != uid:
                client.close()
                continue
            call = Call(client, time.monotonic() + ANSWER_BY_S)
            queued.append((call, threads.submit(relay.answer, call)))
    finally:
        server.close()
        if _still_ours(path, mine):
            os.unlink(path)
        threads.shutdown(wait=False, cancel_futures=True)  # a call not begun: its hook works alone
        wait([answered for _, answered in queued], timeout=ANSWER_BY_S)  # accepted within it
        relay.pool.close()
        os.close(lock_fd)
    return 0


def refuse_late(queued: deque[tuple[Call, Future[None]]], relay: Relay, *, now: float) -> float:
    """Refuse each call past its deadline whose ``out`` has not gone (queued, or waiting on the
    server: docs/performance.md, "The relay's deadline"); the seconds to the next, at most 1."""
    while queued and queued[0][0].deadline <= now:
        call, answered = queued.popleft()
        if not answered.done() and call.refuse():
            with relay.lock:
                relay.counts["late"] += 1
        if answered.cancel():  # no thread took it: none will
            call.client.close()
    return min(1.0, max(0.01, queued[0][0].deadline - now)) if queued else 1.0


def _still_ours(path: str, inode: int) -> bool:
    try:
        return os.stat(path).st_ino == inode
    except OSError:
        return False


def answering(run: str, *, timeout_s: float = 2.0) -> bool:
    """Whether a relay accepts on ``run/relay.sock`` (a dead one's socket refuses)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(timeout_s)
    try:
        probe.connect(os.path.join(run, SOCKET))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def relay_pid(run: str) -> int | None:
    """The pid of the relay serving ``run`` (its lock is held), or None."""
    from deskd.adapters.locks import is_held

    path = Path(run, LOCK)
    if not is_held(path):
        return None  # nobody holds it: no relay
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def stop(run: str, *, wait_s: float = 30.0) -> int | None:
    """Stop the relay serving ``run`` (SIGTERM, then wait for it to go); its pid, or None."""
    pid = relay_pid(run)
    if pid is None:
        return None
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return None
    deadline = time.monotonic() + wait_s
    while relay_pid(run) == pid and time.monotonic() < deadline:
        time.sleep(0.05)
    return pid
