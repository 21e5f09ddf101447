"""The desk's tick lock and role locks, wherever the desk keeps them.

A SQLite desk (one machine) locks files under ``run/``, which the kernel frees when the
holder dies. A PostgreSQL desk (several hosts) keeps them as lease rows in the database
(``store/locks.py``): the holder renews its lease from a thread of its own, over a short
connection each time, so no connection is held for a run; a holder that dies stops renewing
and its lease lapses, or is seen gone at once by a tick on the same machine. Either way a
lock is never waited for (``LockBusy`` at once), and a free lock proves a ``running``
launch's executor is gone. The lease helpers (``leases.py``) load only for a shared desk.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from deskd.adapters.locks import is_held, try_flock, try_lock
from deskd.service.desk.context import DeskContext

TICK = "tick"


def role_lock(role: str) -> str:
    return f"role-{role}"


def _shared(ctx: DeskContext) -> bool:
    if not ctx.settings.shared_database:
        return False
    from deskd.store import locks as db_locks

    return db_locks.in_database(ctx.conn)


def where(ctx: DeskContext, name: str) -> str:
    """Where the lock lives, for messages: ``run/tick.lock`` or ``the database's tick lock``."""
    if ctx.settings.shared_database:
        return f"the database's {name} lock"
    return f"run/{name}.lock"


@contextmanager
def hold(ctx: DeskContext, name: str) -> Iterator[None]:
    """Hold the lock ``name`` for the block, or raise ``LockBusy`` at once."""
    if not _shared(ctx):
        take = try_flock if name == TICK else try_lock
        with take(ctx.settings.run_path / f"{name}.lock"):
            yield
        return
    from deskd.service.desk.leases import hold_lease

    with hold_lease(ctx, name, where=where(ctx, name)):
        yield


def held(ctx: DeskContext, name: str) -> bool:
    """True when some live process (on any host, for a shared desk) holds ``name`` now."""
    if not _shared(ctx):
        return is_held(ctx.settings.run_path / f"{name}.lock")
    from deskd.service.desk.leases import lease_held

    return lease_held(ctx, name)
