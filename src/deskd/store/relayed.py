"""A store connection through this host's relay (``deskd relay``), on a PostgreSQL desk.

Otherwise every executor and every command an agent runs opens a server connection of its
own: at a few hundred agents on three hosts, more than ``max_connections``. The relay keeps
one small pool per host; this connection sends it each statement and each ``begin`` over
``run/relay.sock``, one JSON line each way, and the relay holds a pooled connection from
``begin`` to ``COMMIT`` or ``ROLLBACK`` (``adapters/relay_session.py``), rolling back the
transaction of a client that died. Stdlib only: an agent's command never loads psycopg.
Errors are deskd's store errors, of the class the relay's connection raised.
"""

from __future__ import annotations

import json
import os
import select
import socket

from deskd.store.dialect import Sql
from deskd.store.rows import row_class

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; mypy reads it as True
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from typing import Any

    from deskd.errors import StoreError
    from deskd.store.dialect import Connection, Statement
    from deskd.store.rows import Row

SOCKET = "relay.sock"
"""``run/relay.sock``: the hook's relay socket (``hook.RELAY_SOCKET``), one relay for both."""
HELLO_S = 10.0
"""How long opening waits for the relay to say it serves this database; past it the
command connects directly (a relay that busy costs a connection, never a failure)."""
ANSWER_S = 600.0
"""A bound on one answer: the relay bounds its own waits (a pooled connection, the write
lock), so only a hung relay reaches it."""


def line(said: object) -> bytes:
    """One line of the relay's protocol, either way: a JSON value and a newline (the session
    hook writes its own, not to import this module on every tool call)."""
    return json.dumps(said).encode() + b"\n"


class Cursor:
    """One statement's answer, whole: its rows (None when it returns none) and rowcount."""

    def __init__(self, rowcount: int, rows: Iterable[Row] | None) -> None:
        self.rowcount = rowcount
        self._rows = iter(rows or ())

    def fetchone(self) -> Any:
        return next(self._rows, None)

    def fetchall(self) -> list[Any]:
        return list(self._rows)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


def _error(said: Any) -> StoreError:
    """The relay's error as the same deskd store error class."""
    import deskd.errors as errors

    said = said if isinstance(said, dict) else {"message": str(said)}
    name = str(said.get("class"))
    message = str(said.get("message") or name)
    cls = getattr(errors, name, None)  # the relay names a class of deskd.errors
    if not (isinstance(cls, type) and issubclass(cls, errors.StoreError)):
        cls = errors.StoreError
    if cls is errors.StoreUnreachable:
        return errors.StoreUnreachable(message, str(said.get("advice") or "run `deskd doctor`"))
    exc: StoreError = cls(message)
    return exc


class RelayedConnection:
    """The store's ``Connection`` (``store.dialect``) over the relay's socket.

    A process may keep one across an agent's whole run (an executor between its writes):
    when the relay hung up meanwhile (stopped, idled out), the next statement outside a
    transaction opens a new one through ``reopen`` — the relay answering then, or a direct
    connection that serves every later call. Inside a transaction a lost relay is an error:
    the relay rolled it back."""

    dialect = "postgresql"

    def __init__(
        self, sock: socket.socket, *, busy_ms: int, reopen: Callable[[], Connection] | None = None
    ) -> None:
        self._sock: socket.socket | None = sock
        self._reader = sock.makefile("rb")
        self.busy_ms = busy_ms
        self._tx = False
        self._reopen = reopen
        self._direct: Any = None
        self._closed = False

    @property
    def in_transaction(self) -> bool:
        return bool(self._direct.in_transaction) if self._direct is not None else self._tx

    def execute(self, sql: Statement, params: Sequence[Any] = (), /) -> Any:
        if self._live():
            return self._direct.execute(sql, params)
        text = sql.postgresql if isinstance(sql, Sql) else sql
        values = [int(p) if isinstance(p, bool) else p for p in params]
        return self._rows(self._ask({"op": "execute", "sql": text, "params": values}))

    def raw_execute(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        """A statement in PostgreSQL's own dialect, ``%s`` placeholders (the leases)."""
        if self._live():
            return self._direct.raw_execute(sql, params)
        return self._rows(self._ask({"op": "raw", "sql": sql, "params": list(params or ())}))

    def begin(self, *, write: bool, role: str | None = None) -> None:
        """As ``PgConnection.begin``, run by the relay: a write waits for deskd's write lock
        up to ``busy_ms`` (after a pooled connection came free)."""
        if self._live():
            self._direct.busy_ms = self.busy_ms
            self._direct.begin(write=write, role=role)
            return
        self._ask({"op": "begin", "write": write, "busy_ms": int(self.busy_ms)})

    def close(self) -> None:
        """Hang up: the relay rolls back a transaction left open, and keeps the connection."""
        self._closed = True
        self._hang_up()
        direct, self._direct = self._direct, None
        if direct is not None:
            direct.close()

    def _hang_up(self) -> None:
        sock, self._sock = self._sock, None
        self._tx = False
        if sock is not None:
            self._reader.close()
            sock.close()

    def _live(self) -> bool:
        """True when calls go to a direct connection now. Outside a transaction, a relay
        that hung up since the last call is replaced first (``reopen``)."""
        if self._direct is not None:
            return True
        if self._tx or self._closed or self._reopen is None:
            return False
        if self._sock is not None:
            # select, not recv(MSG_DONTWAIT): a socket with a timeout waits out EAGAIN.
            if not select.select([self._sock], [], [], 0)[0]:
                return False  # nothing to read: the relay is still there
            try:
                if self._sock.recv(1, socket.MSG_PEEK):
                    return False  # a line nobody asked for: the next answer will say
            except OSError:
                pass
        self._hang_up()  # end of file: the relay is gone
        fresh = self._reopen()
        if isinstance(fresh, RelayedConnection):
            self._sock, self._reader = fresh._sock, fresh._reader
            fresh._sock = None
            return False
        self._direct = fresh
        return True

    def _rows(self, answer: dict[str, Any]) -> Cursor:
        columns, rows = answer.get("columns"), answer.get("rows")
        made = None if columns is None or rows is None else map(row_class(tuple(columns)), rows)
        return Cursor(int(answer.get("rowcount", -1)), made)

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        from deskd.errors import StoreError

        if self._sock is None:
            raise StoreError("the relay connection is closed")
        try:
            self._sock.sendall(line(request))
            said = self._reader.readline()
            answer = json.loads(said) if said else None
        except (OSError, ValueError):
            answer = None
        if not isinstance(answer, dict):
            # Like a server connection that dropped: whatever transaction was open is rolled
            # back by the relay (or was never begun); the next call reopens (``_live``).
            self._hang_up()
            raise StoreError("the host's relay went away (a transaction open was rolled back)")
        self._tx = bool(answer.get("tx"))
        if "error" in answer:
            raise _error(answer["error"])
        return answer


def open_relayed(
    run: str,
    *,
    db: str,
    busy_ms: int,
    schema: int,
    reopen: Callable[[], Connection] | None = None,
) -> RelayedConnection | None:
    """A connection through the relay on ``run/relay.sock`` for the database ``db``, or None
    when no relay answers, or it serves another database or schema version (a relay started
    before deskd was upgraded): then the caller connects directly."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(HELLO_S)
    try:
        sock.connect(os.path.join(run, SOCKET))
        sock.sendall(line({"session": True, "db": db}))
        with sock.makefile("rb") as reader:
            said = reader.readline()
        answer = json.loads(said) if said else None
    except (OSError, ValueError):
        sock.close()
        return None
    if not isinstance(answer, dict) or answer.get("schema") != schema:
        sock.close()  # refused (an older relay reads this as a hook call it refuses)
        return None
    sock.settimeout(ANSWER_S)
    return RelayedConnection(sock, busy_ms=busy_ms, reopen=reopen)
