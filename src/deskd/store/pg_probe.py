"""What ``deskd doctor`` asks a PostgreSQL server (apart from ``store.pg``, which every
connection imports: the session hook opens one on each tool call and needs none of this)."""

from __future__ import annotations

from typing import NamedTuple

from deskd.errors import StoreError
from deskd.store.pg import PgConnection, open_pg


class Probe(NamedTuple):
    """What ``deskd doctor`` learns from a PostgreSQL desk."""

    server_version: str
    server_version_num: int
    schema: int
    lock_round_trip: str | None
    """None when a lease taken on one connection was seen, refused and freed on another (or
    the schema is not set up yet: then ``schema`` is 0 and there is nothing to take)."""
    pooler: str | None
    """What sits between deskd and the server (a pooler or proxy), None when nothing does."""
    pooler_problem: str | None
    """Why that pooler cannot serve deskd, None when it can."""


PROBE_LOCK = "doctor-probe"


def probe(url: str, *, busy_ms: int = 2000) -> Probe:
    """Connect twice: the server's version, the schema version, a lease round trip (taken
    here, seen held and refused there, released, seen free) on a lock no tick uses, and
    whether a pooler sits in between."""
    from deskd.store.migrations import schema_version

    first, second = open_pg(url, busy_ms=busy_ms), open_pg(url, busy_ms=busy_ms)
    try:
        version = str(first.raw_execute("SHOW server_version").fetchone()[0])
        number = int(first.raw_execute("SHOW server_version_num").fetchone()[0])
        schema = schema_version(first)
        pooler = _pooler(first)
        trip = _lease_round_trip(first, second) if schema else None
        return Probe(version, number, schema, trip, *pooler)
    finally:
        first.close()
        second.close()


def _lease_round_trip(first: PgConnection, second: PgConnection) -> str | None:
    from deskd.store import locks

    owner, token = "deskd-doctor", 1
    if not locks.take(first, PROBE_LOCK, owner=owner, token=token, ttl_ms=10_000):
        return "another process holds the probe lease (a doctor running elsewhere?)"
    try:
        seen = locks.holder(second, PROBE_LOCK)
        refused = not locks.take(second, PROBE_LOCK, owner="other", token=2, ttl_ms=10_000)
    finally:
        locks.release(first, PROBE_LOCK, token=token)
    if seen is None or seen.token != token or not refused:
        return "a lease taken on one connection was not seen and refused on another"
    if locks.holder(second, PROBE_LOCK) is not None:
        return "a released lease still shows as held"
    return None


def _pooler(conn: PgConnection) -> tuple[str | None, str | None]:
    """A pooler shows as a server process that is not the one the connection was told of at
    start-up (PgBouncer answers the start-up itself); one in statement mode refuses a
    transaction, which deskd needs."""
    told = conn.raw.info.backend_pid
    row = conn.raw_execute("SELECT pg_backend_pid()").fetchone()
    if row is None or int(row[0]) == told:
        return None, None
    found = "a pooler sits between deskd and the server"
    try:
        conn.raw_execute("BEGIN; SELECT 1; COMMIT")
    except StoreError as exc:
        if conn.in_transaction:
            conn.raw_execute("ROLLBACK")
        return found, f"it refuses transactions ({exc}): use session or transaction pooling"
    return found, None
