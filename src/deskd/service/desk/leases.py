"""A PostgreSQL desk's locks as leases (``store/locks.py``): taken with a fresh fencing
token, renewed from a thread over short connections while held, released at the end; a
holder seen gone (a dead process on this machine, or a lapsed lease) is taken over or
reaped. Loaded only for a shared desk: a SQLite desk's locks are files (``locks.py``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from deskd.adapters.locks import LockBusy, gone, me
from deskd.errors import StoreError
from deskd.service.desk.context import DeskContext
from deskd.store import locks as db_locks

LEASE_TTL_MS = 60_000
"""A lease lapses a minute after its last renewal: a holder on another machine that died is
seen gone by the next tick after that."""
RENEW_EVERY_S = 15.0
"""Renewed four times a lapse: a database unreachable for ~45 s costs no lease."""


@contextmanager
def hold_lease(ctx: DeskContext, name: str, *, where: str) -> Iterator[None]:
    """Hold the lease ``name`` for the block, renewed meanwhile, or raise ``LockBusy``."""
    token = int.from_bytes(os.urandom(7), "big")  # a new holder, a new fencing token
    if not _take(ctx, name, owner=me(ctx.settings.host_id), token=token):
        raise LockBusy(where)
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
    return gone(found.owner) and db_locks.replace(
        conn, name, dead=found.token, owner=owner, token=token, ttl_ms=LEASE_TTL_MS
    )


def lease_held(ctx: DeskContext, name: str) -> bool:
    """Whether a live holder has the lease ``name``; one seen gone (lapsed, or a dead process
    on this machine) is removed here, so that holder's fenced writes fail if it was only
    slow."""
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

    def run(self) -> None:
        from deskd.store.db import connect

        while not self.stopping.wait(RENEW_EVERY_S):
            try:
                conn = connect(self.target, create=False, migrate=False)
            except StoreError:
                continue  # the database is away: try again, the lease has time left
            try:
                if not db_locks.renew(conn, self.lease, token=self.token, ttl_ms=LEASE_TTL_MS):
                    return  # taken over: the holder's next fenced write fails
            except StoreError:
                continue
            finally:
                conn.close()

    def stop(self) -> None:
        self.stopping.set()
        self.join()
