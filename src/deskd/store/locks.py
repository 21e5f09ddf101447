"""Locks that span hosts: PostgreSQL session-level advisory locks on one connection.

A SQLite desk lives on one machine and keeps its lock files under ``run/``
(``adapters/locks.py``); a PostgreSQL desk's ticks and executors run on several hosts, so
its tick lock and role locks live in the server. Each is held by the connection that took
it, for as long as that connection lives: a process that dies (``kill -9``, a crash, a host
whose TCP keepalives stop answering) loses its connection and so its locks, exactly as the
kernel drops a dead process's file lock. Keys are (deskd's lock class, a stable 31-bit hash
of the lock's name), so they never meet another application's advisory locks.
"""

from __future__ import annotations

import sqlite3
import zlib
from typing import TYPE_CHECKING, Any, cast

from deskd.store.db import dialect

if TYPE_CHECKING:
    from deskd.store.pg import PgConnection


def in_database(conn: sqlite3.Connection) -> bool:
    """Whether this database keeps the desk's locks (PostgreSQL) or ``run/`` does (SQLite)."""
    return dialect(conn) == "postgresql"


def lock_key(name: str) -> int:
    return zlib.crc32(name.encode("utf-8")) & 0x7FFFFFFF


def _pg(conn: sqlite3.Connection) -> PgConnection:
    if not in_database(conn):
        raise TypeError("database locks need a PostgreSQL desk; a SQLite desk locks in run/")
    return cast("PgConnection", conn)


def _keys(conn: sqlite3.Connection, name: str) -> str:
    return f"{_pg(conn).lock_class}, {lock_key(name)}"


def try_hold(conn: sqlite3.Connection, name: str) -> bool:
    """Take the lock ``name`` for this connection's life, without waiting; False when held
    elsewhere. Re-taking a lock this connection holds succeeds (and must be released twice)."""
    row = _raw(conn, f"SELECT pg_try_advisory_lock({_keys(conn, name)})").fetchone()
    return bool(row[0])


def release(conn: sqlite3.Connection, name: str) -> None:
    _raw(conn, f"SELECT pg_advisory_unlock({_keys(conn, name)})")


def is_held(conn: sqlite3.Connection, name: str) -> bool:
    """Whether any connection to this database holds ``name`` now (takes nothing itself)."""
    klass, key = _pg(conn).lock_class, lock_key(name)
    row = _raw(
        conn,
        "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
        "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
        f"AND classid = {klass} AND objid = {key} AND objsubid = 2)",
    ).fetchone()
    return bool(row[0])


def _raw(conn: sqlite3.Connection, sql: str) -> Any:
    return _pg(conn).raw_execute(sql)
