"""One ``connect()`` and one ``transaction()`` for every process that touches the database.

It runs past 400 lines on purpose: opening, migrating, the write transaction and the mapping
of each backend's errors to deskd's store errors are one contract, kept in one place so a
rule (a busy timeout, a damaged file, a refused server) is written once for both backends.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager

from deskd.store.dialect import Sql

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; mypy reads it as True
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable
    from typing import Any, TypeVar

    from deskd.errors import StoreError
    from deskd.store.dialect import Connection, Statement

    T = TypeVar("T")

DEFAULT_BUSY_MS = 5000


URL_SCHEMES = ("postgresql://", "postgres://")
"""A ``DESKD_DB`` starting with one of these is a PostgreSQL database; anything else a path."""

FILE_MODE = 0o600
DIR_MODE = 0o700
"""The database holds every item and attempt (and agents run as the same user): no one
else reads it. SQLite gives the -wal and -shm files the database file's own mode."""


class DatabaseMissing(Exception):
    """The database file does not exist (or is empty) and the caller asked not to create it."""


class NotRegularFile(Exception):
    """``path`` exists but is no regular file (``/dev/null``, a folder, a FIFO, a socket):
    never opened, created over or chmodded."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(f"{path} is {kind}")
        self.path = path
        self.kind = kind


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


class DatabaseLost(Exception):
    """The desk had a database here and it is gone (deleted, or truncated to 0 bytes).

    Recreating it empty would silently drop every item and attempt, so only ``deskd init``
    may (see ``connect``'s ``marker``).
    """

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


def is_url(target: str | os.PathLike[str]) -> bool:
    """Whether ``target`` names a PostgreSQL database (else it is a SQLite file's path)."""
    return isinstance(target, str) and target.startswith(URL_SCHEMES)


def redact(target: str | os.PathLike[str]) -> str:
    """``target`` fit to print: a URL's password becomes ``***`` (in the user part, and a
    ``password=`` parameter). The one masking of database URLs, for logs, JSON and errors."""
    text = os.fspath(target)
    if not is_url(text):
        return text
    scheme, _, rest = text.partition("://")
    rest, qmark, query = rest.partition("?")
    userinfo, at, host = rest.rpartition("@")
    if at and ":" in userinfo:
        userinfo = userinfo.split(":", 1)[0] + ":***"
    if query:
        pairs = [p.partition("=") for p in query.split("&")]
        query = "&".join(
            k + eq + ("***" if k.lower() == "password" and v else v) for k, eq, v in pairs
        )
    return f"{scheme}://{userinfo}{at}{host}{qmark}{query}"


def store_error(exc: sqlite3.Error) -> StoreError:
    """SQLite's error as deskd's own (``deskd.errors.StoreError`` and kin, by its extended
    or primary result code: ``store.outages``), same words."""
    from deskd.errors import StoreCorrupt, StoreError, StoreIntegrityError
    from deskd.store.outages import OUTAGES

    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(exc, sqlite3.IntegrityError):
        return StoreIntegrityError(message)
    if code is None and ("malformed" in message or "not a database" in message):
        return StoreCorrupt(message)
    code = -1 if code is None else int(code)
    return OUTAGES.get(code, OUTAGES.get(code & 0xFF, StoreError))(message)


def _guarded(call: Callable[[], T]) -> T:
    """``call()``, its sqlite3 error raised as deskd's store error (the cause kept)."""
    try:
        return call()
    except sqlite3.Error as exc:
        raise store_error(exc) from exc


class _Cursor(sqlite3.Cursor):
    """A cursor whose reads, like its connection's statements, fail with store errors (a
    damaged page may be met mid-scan)."""

    def fetchone(self) -> Any:
        return _guarded(super().fetchone)

    def fetchall(self) -> list[Any]:
        return _guarded(super().fetchall)

    def __next__(self) -> Any:
        return _guarded(super().__next__)


class SqliteConnection(sqlite3.Connection):
    """SQLite behind the store's ``Connection``: takes the SQLite half of an ``Sql`` pair and
    raises deskd's store errors (the sqlite3 error kept as the cause)."""

    dialect = "sqlite"

    def execute(self, sql: Statement, params: Any = (), /) -> sqlite3.Cursor:
        # Through a _Cursor of our own (sqlite3's execute() would make a plain one); cursor()
        # gives it the connection's row factory.
        text = sql.sqlite if isinstance(sql, Sql) else sql
        return _guarded(lambda: self.cursor(_Cursor).execute(text, params))

    @property
    def busy_ms(self) -> int:
        return int(self.execute("PRAGMA busy_timeout").fetchone()[0])

    @busy_ms.setter
    def busy_ms(self, value: int) -> None:
        self.execute(f"PRAGMA busy_timeout = {int(value)}")

    def begin(
        self, *, write: bool, roles: Collection[str] | None = None, notify: bool = True
    ) -> None:
        """``BEGIN IMMEDIATE`` (SQLite's one writer: take the write lock now, waiting up to
        the busy timeout, whatever ``roles`` it writes) or a deferred ``BEGIN`` (a read)."""
        self.execute("BEGIN IMMEDIATE" if write else "BEGIN")


def connect(
    path: str | os.PathLike[str],
    *,
    busy_ms: int | None = None,
    create: bool = True,
    migrate: bool = True,
    marker: str | os.PathLike[str] | None = None,
) -> Connection:
    """Open the database in autocommit mode with deskd's pragmas, migrating it if it is behind.

    Autocommit: nothing is written outside an explicit ``transaction()``, so reads never hold
    the write lock. A missing or 0-byte file is created (0600, in a 0700 folder) only when
    ``create`` is true and ``marker`` (the databases this desk created, listed outside the
    data folder) does not name it; when it does, the database was lost: ``DatabaseLost``.
    What is not a regular file (``/dev/null``, a folder) raises ``NotRegularFile``, untouched.

    A ``postgresql://`` URL opens PostgreSQL (``store.pg``, psycopg loaded only then; ``marker``
    does not apply), directly or through PgBouncer. Either raises ``deskd.errors.StoreError``
    and kin, never sqlite3's or psycopg's own errors.
    """
    if is_url(path):
        return _connect_pg(str(path), busy_ms=busy_ms, create=create, migrate=migrate)
    # os.path, not pathlib: the session hook opens the database on every tool call, and
    # importing pathlib is most of what it would cost beyond the floor.
    path = os.fspath(path)
    busy_ms = DEFAULT_BUSY_MS if busy_ms is None else busy_ms  # read now: tests shorten it
    try:
        found = os.stat(path)
    except FileNotFoundError:
        fresh = True
    else:
        if not stat.S_ISREG(found.st_mode):
            raise NotRegularFile(path, _kind(found.st_mode))
        fresh = found.st_size == 0
    if fresh:
        if marker is not None and was_created(marker, path):
            raise DatabaseLost(path)
        if not create:
            raise DatabaseMissing(path)
        os.makedirs(os.path.dirname(path) or ".", mode=DIR_MODE, exist_ok=True)
    conn = _guarded(
        lambda: sqlite3.connect(
            path, isolation_level=None, timeout=busy_ms / 1000, factory=SqliteConnection
        )
    )
    if fresh:
        os.chmod(path, FILE_MODE)
    conn.row_factory = sqlite3.Row
    conn.busy_ms = busy_ms
    conn.execute("PRAGMA foreign_keys = ON")
    # WAL survives in the file; NORMAL is durable across application crashes and skips an
    # fsync per commit, which is what makes one-item-per-call enqueues cheap.
    conn.execute("PRAGMA synchronous = NORMAL")
    if migrate:
        from deskd.store.migrations import ensure_current

        ensure_current(conn)
    if marker is not None and (fresh or not was_created(marker, path)):
        # Also for a database older than the marker: from now on its loss is noticed.
        note_created(marker, path)
    return conn


def _connect_pg(url: str, *, busy_ms: int | None, create: bool, migrate: bool) -> Connection:
    """``connect`` for a URL: open, refuse a database deskd never set up when ``create`` is
    false (the session hook), migrate it when behind."""
    from deskd.store import migrations
    from deskd.store.pg import open_pg

    conn = open_pg(url, busy_ms=DEFAULT_BUSY_MS if busy_ms is None else busy_ms)
    try:
        found = migrations.schema_version(conn)  # read once, for the check and the migration
        if not create and found == 0:
            raise DatabaseMissing(redact(url))
        if migrate:
            migrations.ensure_current(conn, found=found)
    except BaseException:
        conn.close()
        raise
    return conn


def was_created(marker: str | os.PathLike[str], path: str) -> bool:
    """Whether ``marker`` records that the database at ``path`` was created."""
    try:
        with open(marker, encoding="utf-8") as fh:
            return os.path.abspath(path) in fh.read().splitlines()
    except OSError:
        return False


def note_created(marker: str | os.PathLike[str], path: str) -> None:
    """Record in ``marker`` that the database at ``path`` exists (one absolute path a line)."""
    folder = os.path.dirname(os.fspath(marker)) or "."
    os.makedirs(folder, mode=DIR_MODE, exist_ok=True)
    fd = os.open(marker, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
    with os.fdopen(fd, "a", encoding="utf-8") as fh:
        fh.write(os.path.abspath(path) + "\n")


def forget_created(marker: str | os.PathLike[str], path: str) -> None:
    """Drop ``path`` from ``marker``: ``deskd init`` is about to create it anew."""
    try:
        with open(marker, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return
    keep = [line for line in lines if line != os.path.abspath(path)]
    with open(marker, "w", encoding="utf-8") as fh:
        fh.write("".join(line + "\n" for line in keep))


@contextmanager
def transaction(
    conn: Connection, *, roles: str | Iterable[str] | None = None, notify: bool = True
) -> Iterator[Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``; rolls back on any exception. Nests with savepoints.

    ``roles``: the transaction changes rows of that role (or those roles; ``()``: of none)
    only, so on PostgreSQL it waits only for desk-wide writers and those roles' own; None:
    it is desk-wide (docs/architecture.md, "What is serialized"). ``notify``: on PostgreSQL
    its commit cues the console's live refresh."""
    if conn.in_transaction:
        name = f"sp_{time.monotonic_ns()}"
        conn.execute(f"SAVEPOINT {name}")
        try:
            yield conn
        except BaseException:
            # SQLite may already have rolled the whole transaction back (``OR ROLLBACK``,
            # SQLITE_FULL, an interrupt); then there is no savepoint left to return to, and
            # trying would hide the real error.
            if conn.in_transaction:
                conn.execute(f"ROLLBACK TO {name}")
                conn.execute(f"RELEASE {name}")
            raise
        conn.execute(f"RELEASE {name}")
        return
    names = (roles,) if isinstance(roles, str) else None if roles is None else tuple(roles)
    conn.begin(write=True, roles=names, notify=notify)
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextmanager
def read_transaction(conn: Connection) -> Iterator[Connection]:
    """Every read inside sees one point in time (a deferred ``BEGIN``: in WAL mode it takes
    no lock writers wait on). Inside a write transaction it is that transaction's view."""
    if conn.in_transaction:
        yield conn
        return
    conn.begin(write=False)
    try:
        yield conn
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


def integrity_problem(conn: Connection) -> str | None:
    """The first complaint of ``PRAGMA integrity_check``, or None when the file is sound.

    It reads every page (O(size)): for ``deskd doctor`` and before ``prune`` rewrites pages,
    not for every command. Not ``quick_check``: only ``integrity_check`` compares every index
    with its table (``row 12 missing from index items_unread``), and a reader using that
    index sees too few rows."""
    from deskd.errors import StoreError

    try:
        rows = [str(r[0]) for r in conn.execute("PRAGMA integrity_check(4)").fetchall()]
    except StoreError as exc:
        return str(exc)
    if rows == ["ok"]:
        return None
    # The first line may only name the schema ("*** in database main ***"): skip to the fault.
    said = [r for r in rows if not r.startswith("*** in database")] or rows
    return f"database disk image is malformed: {said[0]}"


def write_locked(conn: Connection) -> str | None:
    """SQLite's words when another connection holds the write lock (past this connection's
    busy timeout), else None. ``BEGIN IMMEDIATE`` then ``ROLLBACK`` writes nothing."""
    from deskd.errors import StoreError

    try:
        conn.begin(write=True)
    except StoreError as exc:
        return str(exc)
    conn.execute("ROLLBACK")
    return None


# -- a damaged file stops every later write ----------------------------------------------------

DAMAGE_MARKER = "damaged"
"""``run/damaged``: written the first time SQLite reports the file corrupt (mid-query, not only
at open). While it names the database, every command refuses (exit 3) before opening it, so
nothing more is written into a damaged file; ``deskd doctor`` removes it once the file passes
``integrity_check`` (repaired, or restored from a backup)."""


def is_corruption(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite saying the file itself is damaged (not locked, not full)."""
    from deskd.errors import StoreCorrupt

    return isinstance(exc, StoreCorrupt)


def note_damage(run_dir: str | os.PathLike[str], path: str, reason: str) -> None:
    """Record that the database at ``path`` reported damage (best effort: a full disk or a
    read-only folder must not hide the original error)."""
    try:
        os.makedirs(run_dir, mode=DIR_MODE, exist_ok=True)
        marker = os.path.join(run_dir, DAMAGE_MARKER)
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(f"{os.path.abspath(path)}\n{reason.splitlines()[0] if reason else ''}\n")
    except OSError:
        pass


def damage_noted(run_dir: str | os.PathLike[str], path: str) -> str | None:
    """The reason recorded for the database at ``path``, or None when none is."""
    try:
        with open(os.path.join(run_dir, DAMAGE_MARKER), encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    if not lines or lines[0] != os.path.abspath(path):
        return None
    return (lines[1] if len(lines) > 1 else "") or "database disk image is malformed"


def clear_damage(run_dir: str | os.PathLike[str], path: str) -> bool:
    """Forget the damage recorded for ``path`` (the file passed ``integrity_check``)."""
    if damage_noted(run_dir, path) is None:
        return False
    try:
        os.unlink(os.path.join(run_dir, DAMAGE_MARKER))
    except OSError:
        return False
    return True


def journal_mode(conn: Connection) -> str:
    """The database's journal mode (``wal`` for a deskd database); reading it writes nothing."""
    if conn.dialect != "sqlite":
        return conn.dialect
    return str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
