"""PostgreSQL behind the store's ``Connection`` (``store.dialect``), with psycopg 3.

Only ``store.db.connect`` opens one, for a ``postgresql://`` URL: psycopg never loads for a
SQLite desk. It behaves as SQLite where the store relies on it: ``?`` placeholders (sent as
``%s``, the only rewriting), bound client-side (``ClientCursor``) so a literal's type is
inferred as SQLite's loose typing expects, a bool sent as 0/1; autocommit outside
transactions (``begin``: docs/architecture.md, "What is serialized"); deskd's store errors,
the psycopg error kept as the cause. Nothing is kept on the server session between
transactions, so a pooler in transaction mode (PgBouncer) may hand it to another client.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.pq import ExecStatus, TransactionStatus

from deskd.store.dialect import Sql, Statement, placeholders
from deskd.store.rows import row_class

if TYPE_CHECKING:
    from deskd.errors import StoreError, StoreUnreachable

LOCK_CLASS = 1684370283
"""deskd's advisory-lock class (the first key of every two-key advisory lock it takes)."""
WRITE_LOCK = 1
"""Object key of the write lock that stands in for SQLite's single writer."""
ROLE_LOCK_CLASS = LOCK_CLASS + 1
"""Class of the per-role write locks (object key: ``hashtext`` of the role's name)."""
CHANNEL = "'deskd:' || md5(current_database())"
"""The desk's ``NOTIFY`` channel, named on the server from its database (the desk: an alias a
pooler gives it cannot split notifier and listener; hashed, as a channel's name is at most 63
bytes); delivered in that database only."""


NUMERIC = psycopg.postgres.types["numeric"].oid
"""The type id of NUMERIC: what SUM over BIGINT gives, where SQLite gives an int."""


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _has_rows(cursor: Any) -> bool:
    # From the result itself: psycopg's ``description`` builds a Column per field on every
    # read, which was a sixth of the relay's CPU a call (docs/performance.md).
    res = cursor.pgresult
    return res is not None and bool(res.nfields or res.status == ExecStatus.TUPLES_OK)


def _row_factory(cursor: Any) -> Any:
    if not _has_rows(cursor):
        return tuple
    res = cursor.pgresult
    fields = range(res.nfields)
    cls = row_class(tuple([res.fname(i).decode() for i in fields]))
    if NUMERIC not in [res.ftype(i) for i in fields]:
        return cls  # no value to convert: each row is built in C, not value by value
    return lambda values: cls([_plain(v) for v in values])


class Cursor:
    """What ``execute`` returns: its rows, read at once (the connection's one psycopg cursor
    runs the next statement), and ``rowcount``."""

    def __init__(self, cur: Any) -> None:
        self.rowcount: int = cur.rowcount
        self._rows = iter(cur.fetchall() if _has_rows(cur) else ())

    def fetchone(self) -> Any:
        return next(self._rows, None)

    def fetchall(self) -> list[Any]:
        return list(self._rows)

    def __iter__(self) -> Iterator[Any]:
        return self._rows


_BUSY = (pg_errors.LockNotAvailable, pg_errors.SerializationFailure, pg_errors.DeadlockDetected)


def store_error(exc: psycopg.Error) -> StoreError:
    """psycopg's error as deskd's own (``deskd.errors.StoreError`` and kin), same words
    (``deskd.errors`` imported only on a failure: the hook's path stays light)."""
    from deskd.errors import StoreBusy, StoreError, StoreIntegrityError, StoreServerDown
    from deskd.store.outages import OUTAGES

    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if isinstance(exc, pg_errors.IntegrityError):
        return StoreIntegrityError(message)
    if isinstance(exc, _BUSY):
        return StoreBusy(message)
    state = exc.sqlstate or ""
    if not state and isinstance(exc, psycopg.OperationalError):
        return StoreServerDown(message)  # libpq's own: the connection was lost or closed
    return OUTAGES.get(state, OUTAGES.get(state[:2], StoreError))(message)


class PgConnection:
    """One psycopg connection in autocommit mode: the store's ``Connection`` on PostgreSQL."""

    dialect = "postgresql"
    lock_class = LOCK_CLASS

    def __init__(self, raw: psycopg.Connection[Any], *, url: str, busy_ms: int) -> None:
        self.raw = raw
        self._cursor = raw.cursor()  # one for every statement: psycopg's makes one a call
        self.url = url
        self.busy_ms = busy_ms

    @property
    def in_transaction(self) -> bool:
        return bool(self.raw.info.transaction_status != TransactionStatus.IDLE)

    def execute(self, sql: Statement, params: Sequence[Any] = (), /) -> Cursor:
        text = placeholders(sql.postgresql if isinstance(sql, Sql) else sql)
        values = tuple(int(p) if isinstance(p, bool) else p for p in params)
        try:
            return Cursor(self._cursor.execute(text, values))
        except psycopg.Error as exc:
            raise store_error(exc) from exc

    def begin(
        self, *, write: bool, roles: Collection[str] | None = None, notify: bool = True
    ) -> None:
        """A write transaction waits for deskd's write lock, shared when it names the
        ``roles`` whose rows it changes (then it waits for each of theirs), and, with
        ``notify``, tells the console (``store/pg_listen.py``); a read one reads one snapshot."""
        # One round trip: a client-side cursor sends the statements in one message. The
        # timeout is the transaction's own (SET LOCAL): nothing outlives it on a server
        # connection a pooler shares. The desk lock comes first, then the roles' in the order
        # of their keys (sorted in a subquery, which PostgreSQL never flattens): no two
        # writers can each hold a lock the other waits for.
        sql = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        if write:
            desk = "pg_advisory_xact_lock" if roles is None else "pg_advisory_xact_lock_shared"
            sql = f"BEGIN; SET LOCAL lock_timeout = {int(self.busy_ms)}; "
            sql += f"SELECT {desk}({LOCK_CLASS}, {WRITE_LOCK})"
            if roles:
                names = ", ".join(["(%s)"] * len(roles))
                sql += f"; SELECT pg_advisory_xact_lock({ROLE_LOCK_CLASS}, key) FROM (SELECT "
                sql += f"DISTINCT hashtext(name) AS key FROM (VALUES {names}) AS r(name) "
                sql += "ORDER BY key) AS keys"
            if notify:
                sql += f"; SELECT pg_notify({CHANNEL}, '')"
        try:
            self._cursor.execute(sql, tuple(roles) if write and roles else None)
        except psycopg.Error as exc:
            if self.in_transaction:
                self._cursor.execute("ROLLBACK")
            raise store_error(exc) from exc

    def stored_version(self) -> int:
        """``deskd_schema``'s version, 0 when there is no such table (outside a transaction:
        the failed read would abort one). See ``migrations.schema_version``."""
        try:
            row = self.raw.execute("SELECT version FROM deskd_schema").fetchone()
        except pg_errors.UndefinedTable:
            return 0
        except psycopg.Error as exc:
            raise store_error(exc) from exc
        return int(row[0]) if row is not None else 0

    def raw_execute(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        """A statement in PostgreSQL's own dialect, ``%s`` placeholders (migrations, leases,
        the doctor)."""
        try:
            return self.raw.execute(sql, params)
        except psycopg.Error as exc:
            raise store_error(exc) from exc

    def close(self) -> None:
        self.raw.close()


KEEPALIVES: dict[str, Any] = {
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
}
"""libpq's client-side TCP keepalives: a server that vanished (power off, cable out) fails
this connection's next statement within about a minute instead of the kernel's two hours."""


CONNECT_RETRY_S = 15.0
"""How long opening a connection keeps trying while the server (or a pooler) has no slot
free or is still starting: a burst of agents at a full server waits its turn
instead of failing its command."""

_BUSY_STATES = frozenset({"53300", "57P03"})  # too_many_connections, cannot_connect_now
_BUSY_WORDS = (
    "too many clients",
    "connection slots are reserved",
    "no more connections allowed",  # PgBouncer's max_client_conn
    "the database system is starting up",
    # A Unix socket whose listen queue is full (EAGAIN): hundreds of connects at once,
    # queued before the server could refuse or take them.
    "resource temporarily unavailable",
)
"""A full or starting server is worth waiting for; a refused socket is not retried: it is
far more often a wrong host or port (the error should say so at once) than a restart."""


def busy_server(exc: BaseException) -> bool:
    """Whether a failed connect is worth retrying: the server is full or restarting, not
    refusing us (a wrong password or a missing database fails at once)."""
    from deskd.errors import StoreError

    cause = exc.__cause__ if isinstance(exc, StoreError) else exc
    if getattr(cause, "sqlstate", None) in _BUSY_STATES:
        return True
    text = str(cause).lower()
    return any(word in text for word in _BUSY_WORDS)


def open_pg(url: str, *, busy_ms: int, retry_s: float = CONNECT_RETRY_S) -> PgConnection:
    """Connect in autocommit mode, in one round trip (the session hook connects on every
    tool call), with nothing set on the server session (no ``options``, ``SET`` or session
    lock: a pooler in transaction mode shares it between transactions).

    A server (or pooler) with no slot free, or still starting, is tried again with growing,
    jittered waits for ``retry_s`` (tenacity, imported only then); then its refusal is raised.
    """
    try:
        return _open(url, busy_ms=busy_ms)
    except Exception as exc:  # a StoreError: deskd.errors is imported only now
        if retry_s <= 0 or not busy_server(exc):
            raise
    from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_random_exponential

    for attempt in Retrying(
        stop=stop_after_delay(retry_s),
        wait=wait_random_exponential(multiplier=0.05, max=2.0),
        retry=retry_if_exception(busy_server),
        reraise=True,
    ):
        with attempt:
            return _open(url, busy_ms=busy_ms)
    raise AssertionError("unreachable: tenacity re-raises the last refusal")  # pragma: no cover


def connect_settings(busy_ms: int) -> dict[str, Any]:
    """``psycopg.connect``'s keywords for every deskd connection (the hook relay's pool too)."""
    # A client-side cursor never prepares: no statement is counted toward preparing it.
    return {
        "autocommit": True,
        "cursor_factory": psycopg.ClientCursor,
        "prepare_threshold": None,
        "row_factory": _row_factory,
        "connect_timeout": max(2, busy_ms // 1000),
        "application_name": "deskd",
        **KEEPALIVES,
    }


def _open(url: str, *, busy_ms: int) -> PgConnection:
    try:
        raw = psycopg.connect(url, **connect_settings(busy_ms))
    except psycopg.OperationalError as exc:
        raise connect_error(exc) from exc
    except psycopg.Error as exc:
        raise store_error(exc) from exc
    return PgConnection(raw, url=url, busy_ms=busy_ms)


_CONNECT_FAILURES = (
    (
        ("authentication failed", "pg_hba.conf", "role ", "password"),
        "authentication failed",
        "check the user and password in DESKD_DB (or ~/.pgpass, PGPASSWORD) and that the "
        "server's pg_hba.conf lets this user in from this host",
    ),
    (
        ("database ",),
        "no such database",
        "create it (createdb NAME) or fix the database name at the end of DESKD_DB",
    ),
    (
        ("refused", "resolve host", "translate host", "timeout", "route to host", "unreachable",
         "No such file or directory"),
        "server unreachable",
        "check the host and port in DESKD_DB, that PostgreSQL runs there and accepts TCP "
        "connections from this host (listen_addresses, firewall)",
    ),
)  # fmt: skip


def connect_error(exc: psycopg.Error) -> StoreUnreachable:
    """A failed connect in one line: what the server said, what kind of failure, and what to check."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    said = text.split("FATAL:", 1)[-1].strip()
    from deskd.errors import StoreUnreachable

    for needles, what, advice in _CONNECT_FAILURES:
        if any(n in said for n in needles):
            return StoreUnreachable(f"{what}: {said}", advice)
    return StoreUnreachable(f"cannot connect: {said}", "run `deskd doctor`")
