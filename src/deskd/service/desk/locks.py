"""The desk's tick lock and role locks, wherever the desk keeps them.

A SQLite desk (one machine) locks files under ``run/``, which the kernel frees when the
holder dies. A PostgreSQL desk (several hosts) keeps them as lease rows in the database
(``store/locks.py``): the holder renews its lease from a thread of its own, over a short
connection each time, so no connection is held for a run; a holder that dies stops renewing
and its lease lapses, or is seen gone at once by a tick on the same machine. Either way a
lock is never waited for (``LockBusy`` at once), and a free lock proves a ``running``
launch's executor is gone.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from deskd.adapters.locks import LockBusy, is_held, try_lock
from deskd.service.desk.context import DeskContext
from deskd.store import locks as db_locks

TICK = "tick"

LEASE_TTL_MS = 60_000
"""A lease lapses a minute after its last renewal: a holder on another machine that died is
seen gone by the next tick after that."""
RENEW_EVERY_S = 15.0
"""Renewed four times a lapse: a database unreachable for ~45 s costs no lease."""


def role_lock(role: str) -> str:
    return f"role-{role}"


def _shared(ctx: DeskContext) -> bool:
    return ctx.settings.shared_database and db_locks.in_database(ctx.conn)


def where(ctx: DeskContext, name: str) -> str:
    """Where the lock lives, for messages: ``run/tick.lock`` or ``the database's tick lock``."""
    if ctx.settings.shared_database:
        return f"the database's {name} lock"
    return f"run/{name}.lock"


@contextmanager
def hold(ctx: DeskContext, name: str) -> Iterator[None]:
    """Hold the lock ``name`` for the block, or raise ``LockBusy`` at once."""
    if not _shared(ctx):
        with try_lock(ctx.settings.run_path / f"{name}.lock"):
            yield
        return
    from deskd.adapters.lease_owner import me

    token = int.from_bytes(os.urandom(7), "big")  # a new holder, a new fencing token
    if not _take(ctx, name, owner=me(ctx.settings.host_id), token=token):
        raise LockBusy(where(ctx, name))
    renewal = _Renewal(ctx, name, token)
    renewal.start()
    ctx.fences[name] = token
    try:
        yield
    finally:
        ctx.fences.pop(name, None)
        renewal.stop()
        db_locks.release(ctx.conn, name, token=token)


def _take(ctx: DeskContext, name: str, *, owner: str, token: int) -> bool:
    conn = ctx.conn
    if db_locks.take(conn, name, owner=owner, token=token, ttl_ms=LEASE_TTL_MS):
        return True
    found = db_locks.holder(conn, name)
    if found is None:  # released or lapsed between the two statements: try once more
        return db_locks.take(conn, name, owner=owner, token=token, ttl_ms=LEASE_TTL_MS)
    from deskd.adapters.lease_owner import gone

    return gone(found.owner) and db_locks.replace(
        conn, name, dead=found.token, owner=owner, token=token, ttl_ms=LEASE_TTL_MS
    )


def held(ctx: DeskContext, name: str) -> bool:
    """True when some live process (on any host, for a shared desk) holds ``name`` now.

    On a shared desk a lease whose holder is seen gone (lapsed, or a dead process on this
    machine) is removed here, so that holder's fenced writes fail if it was only slow."""
    if not _shared(ctx):
        return is_held(ctx.settings.run_path / f"{name}.lock")
    from deskd.adapters.lease_owner import gone

    conn = ctx.conn
    found = db_locks.holder(conn, name)
    if found is not None and not gone(found.owner):
        return True
    db_locks.reap(conn, name, dead=found.token if found is not None else None)
    return False


class _Renewal(threading.Thread):
    """Renews one lease every ``RENEW_EVERY_S`` over a connection of its own, opened for
    each renewal: the holder keeps no connection between its writes."""

    def __init__(self, ctx: DeskContext, name: str, token: int) -> None:
        super().__init__(name=f"deskd-lease-{name}", daemon=True)
        self.target = ctx.settings.database
        self.lease, self.token = name, token
        self.stopping = threading.Event()
        self.lost = False

    def run(self) -> None:
        from deskd.store.db import connect

        while not self.stopping.wait(RENEW_EVERY_S):
            try:
                conn = connect(self.target, create=False, migrate=False)
            except sqlite3.Error:
                continue  # the database is away: try again, the lease has time left
            try:
                if not db_locks.renew(conn, self.lease, token=self.token, ttl_ms=LEASE_TTL_MS):
                    self.lost = True  # taken over: the holder's next fenced write fails
                    return
            except sqlite3.Error:
                continue
            finally:
                conn.close()

    def stop(self) -> None:
        self.stopping.set()
        self.join()
