"""What ``deskd doctor`` asks a PostgreSQL server (apart from ``store.pg``, which every
connection imports: the session hook opens one on each tool call and needs none of this)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import cast

from deskd.store.pg import open_pg


@dataclass(frozen=True, slots=True, kw_only=True)
class Probe:
    """What ``deskd doctor`` learns from a PostgreSQL desk, writing nothing."""

    server_version: str
    server_version_num: int
    schema: int
    lock_round_trip: str | None
    """None when a lock taken on one connection was seen, refused and freed on another."""


PROBE_LOCK = "doctor-probe"


def probe(url: str, *, busy_ms: int = 2000) -> Probe:
    """Connect twice: the server's version, the schema version, and a lock round trip (taken
    here, seen held and refused there, released, seen free) on a lock no tick uses."""
    from deskd.store import locks
    from deskd.store.pg_schema import schema_version

    first, second = open_pg(url, busy_ms=busy_ms), open_pg(url, busy_ms=busy_ms)
    try:
        version = str(first.raw_execute("SHOW server_version").fetchone()[0])
        number = int(first.raw_execute("SHOW server_version_num").fetchone()[0])
        a, b = cast(sqlite3.Connection, first), cast(sqlite3.Connection, second)
        problem = None
        if not locks.try_hold(a, PROBE_LOCK):
            problem = "another process holds the probe lock (a doctor running elsewhere?)"
        else:
            seen, refused = locks.is_held(b, PROBE_LOCK), not locks.try_hold(b, PROBE_LOCK)
            locks.release(a, PROBE_LOCK)
            if not (seen and refused):
                problem = "a lock held on one connection was not seen from another"
            elif locks.is_held(b, PROBE_LOCK):
                problem = "a released lock still shows as held"
        return Probe(
            server_version=version,
            server_version_num=number,
            schema=schema_version(first),
            lock_round_trip=problem,
        )
    finally:
        first.close()
        second.close()
