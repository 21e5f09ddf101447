"""One ``connect()`` and one ``transaction()`` for every process that touches the database."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager

DEFAULT_BUSY_MS = 5000


URL_SCHEMES = ("postgresql://", "postgres://")
"""A ``DESKD_DB`` starting with one of these is a PostgreSQL database; anything else a path."""


class DatabaseMissing(Exception):
    """The database file does not exist and the caller asked not to create it."""


def is_url(target: str | os.PathLike[str]) -> bool:
    """Whether ``target`` names a PostgreSQL database (else it is a SQLite file's path)."""
    return isinstance(target, str) and target.startswith(URL_SCHEMES)


def redact(target: str | os.PathLike[str]) -> str:
    """``target`` fit to print: a URL's password becomes ``***``."""
    text = os.fspath(target)
    if not is_url(text):
        return text
    scheme, _, rest = text.partition("://")
    userinfo, at, host = rest.rpartition("@")
    if at and ":" in userinfo:
        userinfo = userinfo.split(":", 1)[0] + ":***"
    return f"{scheme}://{userinfo}{at}{host}"


def dialect(conn: object) -> str:
    """``sqlite`` or ``postgresql``: the few callers outside the SQL that must differ ask here."""
    return str(getattr(conn, "dialect", "sqlite"))


def connect(
    path: str | os.PathLike[str],
    *,
    busy_ms: int = DEFAULT_BUSY_MS,
    create: bool = True,
    migrate: bool = True,
) -> sqlite3.Connection:
    """Open the database in autocommit mode with deskd's pragmas, migrating it if it is behind.

    Autocommit (``isolation_level=None``) means nothing is written outside an explicit
    ``transaction()``; read paths therefore never hold the write lock.

    A ``postgresql://`` URL opens PostgreSQL instead (``store.pg``, psycopg loaded only
    then): the same calls, statements and rows, typed as ``sqlite3.Connection`` because the
    store uses nothing of it the adapter lacks.
    """
    if is_url(path):
        from deskd.store.pg import connect_pg

        return connect_pg(str(path), busy_ms=busy_ms, create=create, migrate=migrate)
    # os.path, not pathlib: the session hook opens the database on every tool call, and
    # importing pathlib is most of what it would cost beyond the floor.
    path = os.fspath(path)
    if not os.path.exists(path):
        if not create:
            raise DatabaseMissing(path)
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None, timeout=busy_ms / 1000)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
    conn.execute("PRAGMA foreign_keys = ON")
    # WAL survives in the file; NORMAL is durable across application crashes and skips an
    # fsync per commit, which is what makes one-item-per-call enqueues cheap.
    conn.execute("PRAGMA synchronous = NORMAL")
    if migrate:
        from deskd.store.migrations import ensure_current

        ensure_current(conn)
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``; rolls back on any exception. Nests with savepoints."""
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
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def journal_mode(conn: sqlite3.Connection) -> str:
    """The database's journal mode (``wal`` for a deskd database); reading it writes nothing."""
    if dialect(conn) != "sqlite":
        return dialect(conn)
    return str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
