"""The relay's store sessions: executors' and agents' commands share the host's connections.

A ``deskd`` process on a PostgreSQL desk whose host runs a relay reaches the database
through it (``store/relayed.py``): it opens ``run/relay.sock``, says ``{"session": true,
"db": URL}``, then sends one JSON line per ``begin``, statement or lease statement and reads
one line back each. The relay runs a statement outside a transaction on a pooled connection
it takes and gives back at once; from ``begin`` to the ``COMMIT`` or ``ROLLBACK`` the
session holds one, so a transaction is one server transaction, as direct.

The pool is the sessions' own (``SESSION_POOL``), apart from the hook writers' two: the hook
is on an agent's every tool call and has seconds to answer, so a burst of executors' writes
must never take its connections; and the sessions' bound is what bounds a host's share of
the server. A session waiting for a connection waits here, in the relay, up to ``SLOT_S``
(then ``StoreBusy``), never in the server's connection slots. A session that hangs up, dies
or says nothing for ``IDLE_IN_TX_S`` inside a transaction has it rolled back and its
connection returned: no lock and no half-written rows outlive a killed client.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from typing import Any

from deskd.adapters.relay_batch import Busy, Pool, broken
from deskd.errors import StoreBusy, StoreError
from deskd.store.dialect import Connection
from deskd.store.relayed import line

SESSION_POOL = 4
"""Server connections a relay opens at most for sessions. Every write waits for deskd's one
write lock anyway, so more connections would only queue on it in the server; with the hook
writers' two a host holds at most six, 18 for three hosts, leaving a 40-slot server room for
ticks, the console and an operator."""
SLOT_S = 15.0
"""How long a session waits for a pooled connection: as long as a direct connect keeps
trying a full server (``store.pg.CONNECT_RETRY_S``); a ``begin`` whose lock wait is longer
(an executing tick's) waits that long."""
IDLE_IN_TX_S = 120.0
"""A session silent this long inside a transaction is taken for hung: rolled back."""
MAX_REQUEST = 8 << 20


class Sessions:
    """Every session of one relay, over one bounded pool."""

    def __init__(self, opener: Callable[[], Connection]) -> None:
        self.pool = Pool(opener, SESSION_POOL)
        self.lock = threading.Lock()
        self.clients: set[socket.socket] = set()
        self.counts = {"sessions": 0, "statements": 0, "session_transactions": 0}

    def status(self) -> dict[str, int]:
        with self.lock:
            return {**self.counts, "open_sessions": len(self.clients)}

    def count(self, key: str) -> None:
        with self.lock:
            self.counts[key] += 1

    def serve(self, client: socket.socket, reader: Any, touch: Callable[[], None]) -> None:
        """One session until the client hangs up; ``touch`` marks the relay busy."""
        with self.lock:
            self.clients.add(client)
            self.counts["sessions"] += 1
        try:
            _Session(self, client, touch).run(reader)
        finally:
            with self.lock:
                self.clients.discard(client)

    def stop(self) -> None:
        """Hang up on every session (each rolls back what it holds), close the pool."""
        with self.lock:
            clients = list(self.clients)
        for client in clients:
            try:
                client.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.pool.close()


class _Session:
    def __init__(self, sessions: Sessions, client: socket.socket, touch: Callable[[], None]):
        self.sessions = sessions
        self.client = client
        self.touch = touch
        self.conn: Connection | None = None

    def run(self, reader: Any) -> None:
        try:
            while True:
                self.client.settimeout(IDLE_IN_TX_S if self.conn is not None else None)
                text = reader.readline(MAX_REQUEST)
                if not text.endswith(b"\n"):
                    return  # hung up (or cut off): the finally below rolls back
                self.touch()
                self.client.sendall(self.answer(json.loads(text)))
        except (OSError, ValueError):
            pass
        finally:
            self.give_back()

    def answer(self, request: Any) -> bytes:
        said: dict[str, Any]
        try:
            said = self.one(request)
        except StoreError as exc:
            said = {"error": {"class": type(exc).__name__, "message": str(exc),
                              "advice": getattr(exc, "advice", None)}}  # fmt: skip
        except Exception as exc:  # a bad request, a value JSON cannot carry
            said = {"error": {"class": "StoreError", "message": f"{type(exc).__name__}: {exc}"}}
        finally:
            if self.conn is not None and not self.conn.in_transaction:
                self.give_back()
        said["tx"] = self.conn is not None
        try:
            return line(said)
        except (TypeError, ValueError) as exc:  # a row value JSON cannot carry
            return line({"error": {"class": "StoreError", "message": str(exc)}, "tx": said["tx"]})

    def one(self, request: Any) -> dict[str, Any]:
        if not isinstance(request, dict) or request.get("op") not in ("begin", "execute", "raw"):
            raise ValueError("expected an object with op begin, execute or raw")
        op = request["op"]
        if op == "begin":
            if self.conn is not None:
                raise StoreError("a transaction is already open on this session")
            busy_ms = int(request.get("busy_ms", 5000))
            # A turn at the pool is a turn at the write lock (every session connection queues
            # on it): a client that waits longer for the lock (a tick) waits as long for this.
            conn = self.take(max(SLOT_S, busy_ms / 1000))
            conn.busy_ms = busy_ms
            conn.begin(write=bool(request.get("write")))
            self.sessions.count("session_transactions")
            return {}
        conn = self.conn or self.take()
        sql, params = str(request["sql"]), list(request.get("params") or ())
        self.sessions.count("statements")
        if op == "raw":
            cur = getattr(conn, "raw_execute")(sql, params)  # noqa: B009  (PgConnection's)
        else:
            cur = conn.execute(sql, params)
        description = getattr(cur, "description", None)
        if description is None:
            return {"rowcount": cur.rowcount}
        rows = [list(row) for row in cur.fetchall()]
        return {"rowcount": cur.rowcount, "columns": [d.name for d in description], "rows": rows}

    def take(self, wait_s: float = SLOT_S) -> Connection:
        try:
            self.conn = self.sessions.pool.take(wait_s)
        except Busy:
            raise StoreBusy(
                f"the host's relay had no server connection free within {wait_s:g} s"
            ) from None
        return self.conn

    def give_back(self) -> None:
        conn, self.conn = self.conn, None
        if conn is None:
            return
        bad = broken(conn)
        if not bad and conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except Exception:
                bad = True
        self.sessions.pool.give(conn, broken=bad or broken(conn))
