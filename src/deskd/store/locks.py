"""Locks that span hosts: lease rows in a PostgreSQL desk's ``leases`` table.

A SQLite desk keeps its lock files under ``run/`` (``adapters/locks.py``); a PostgreSQL
desk's ticks and executors run on several hosts, so its tick and role locks are rows in the
server. Not session advisory locks: one of those holds a server connection as long as the
lock (a whole agent run, for a role lock) and breaks behind a pooler in transaction mode. A
lease lapses at ``expires_at``, on the server's clock so hosts whose clocks disagree still
agree; its holder renews it well within its time to live, a dead holder stops renewing.
Every statement is one autocommit round trip in PostgreSQL's own dialect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, cast

if TYPE_CHECKING:
    from deskd.store.dialect import Connection
    from deskd.store.pg import PgConnection

SERVER_NOW = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT"
"""The server's clock in Unix milliseconds: one clock for every host of the desk."""


class Lease(NamedTuple):
    """The live holder of a lock: who, with which token, lapsing when."""

    owner: str
    token: int
    expires_at: int


def in_database(conn: Connection) -> bool:
    """Whether this database keeps the desk's locks (PostgreSQL) or ``run/`` does (SQLite)."""
    return conn.dialect == "postgresql"


def _run(conn: Connection, sql: str, params: tuple[Any, ...]) -> Any:
    if not in_database(conn):
        raise TypeError("database locks need a PostgreSQL desk; a SQLite desk locks in run/")
    return cast("PgConnection", conn).raw_execute(sql, params)


def take(conn: Connection, name: str, *, owner: str, token: int, ttl_ms: int) -> bool:
    """Write the lease ``name`` for ``owner`` with ``token`` when nobody holds it (no row, or
    a lapsed one); False when a live lease is someone else's."""
    cur = _run(
        conn,
        "INSERT INTO leases (name, owner, token, expires_at) "
        f"VALUES (%s, %s, %s, {SERVER_NOW} + %s) "
        "ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, token = EXCLUDED.token, "
        "expires_at = EXCLUDED.expires_at "
        f"WHERE leases.expires_at < {SERVER_NOW}",
        (name, owner, token, ttl_ms),
    )
    return bool(cur.rowcount == 1)


def replace(conn: Connection, name: str, *, dead: int, owner: str, token: int, ttl_ms: int) -> bool:
    """Take over the lease whose holder (token ``dead``) is known to be gone; False when it
    changed hands meanwhile."""
    cur = _run(
        conn,
        f"UPDATE leases SET owner = %s, token = %s, expires_at = {SERVER_NOW} + %s "
        "WHERE name = %s AND token = %s",
        (owner, token, ttl_ms, name, dead),
    )
    return bool(cur.rowcount == 1)


def renew(conn: Connection, name: str, *, token: int, ttl_ms: int) -> bool:
    """Push the lease's lapse ``ttl_ms`` past now; False when it is no longer this token's."""
    cur = _run(
        conn,
        f"UPDATE leases SET expires_at = {SERVER_NOW} + %s WHERE name = %s AND token = %s",
        (ttl_ms, name, token),
    )
    return bool(cur.rowcount == 1)


def release(conn: Connection, name: str, *, token: int) -> None:
    _run(conn, "DELETE FROM leases WHERE name = %s AND token = %s", (name, token))


def holder(conn: Connection, name: str) -> Lease | None:
    """The live (unlapsed) lease on ``name``, or None."""
    row = _run(
        conn,
        f"SELECT owner, token, expires_at FROM leases WHERE name = %s "
        f"AND expires_at >= {SERVER_NOW}",
        (name,),
    ).fetchone()
    return None if row is None else Lease(str(row[0]), int(row[1]), int(row[2]))


def holds(conn: Connection, name: str, *, token: int) -> bool:
    """Whether the lease ``name`` is still ``token``'s (the fencing check; lapsed or not: a
    lapsed lease nobody took over is still the holder's)."""
    row = _run(
        conn, "SELECT 1 FROM leases WHERE name = %s AND token = %s", (name, token)
    ).fetchone()
    return row is not None


def reap(conn: Connection, name: str, *, dead: int | None) -> None:
    """Remove the lease of a holder seen gone: the one with token ``dead``, or with None a
    lapsed one."""
    if dead is not None:
        release(conn, name, token=dead)
        return
    _run(conn, f"DELETE FROM leases WHERE name = %s AND expires_at < {SERVER_NOW}", (name,))
