"""The desk's tick lock and role locks, wherever the desk keeps them.

A SQLite desk (one machine) locks files under ``run/``; a PostgreSQL desk (several hosts)
takes advisory locks in the database, held by this process's connection. Either way a
lock is never waited for (``LockBusy`` at once) and dies with the process that held it, so
a free role lock proves a ``running`` launch's executor is gone.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from deskd.adapters.locks import LockBusy, is_held, try_lock
from deskd.service.desk.context import DeskContext
from deskd.store import locks as db_locks

TICK = "tick"


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
    conn = ctx.conn
    if not db_locks.try_hold(conn, name):
        raise LockBusy(where(ctx, name))
    try:
        yield
    finally:
        db_locks.release(conn, name)


def held(ctx: DeskContext, name: str) -> bool:
    """True when some live process (on any host, for a shared desk) holds ``name`` now."""
    if not _shared(ctx):
        return is_held(ctx.settings.run_path / f"{name}.lock")
    return db_locks.is_held(ctx.conn, name)
