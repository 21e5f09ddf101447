"""Role and tick locks over filelock: non-blocking, kernel-released when a process dies.

Lock files live in ``run/`` under the desk folder (never a world-writable /tmp, where
another user could pre-create them). ``is_held`` lets a later tick tell whether the
executor that claimed a launch is still alive: the kernel drops the lock with the process.

filelock is imported when a lock is taken, not with this module: it loads ``logging``,
``secrets`` and ``decimal`` (~30 ms of CPU on the project machine, twice the interpreter's
own start), which a command that imports the lock helpers without taking a lock should not
pay for.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from filelock import FileLock


class LockBusy(Exception):
    def __init__(self, path: Path | str) -> None:
        super().__init__(f"another process holds {path}")
        self.path = path


def role_lock_path(run_dir: Path, role: str) -> Path:
    return run_dir / f"role-{role}.lock"


def tick_lock_path(run_dir: Path) -> Path:
    return run_dir / "tick.lock"


def _lock(path: Path) -> FileLock:
    from filelock import FileLock

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    # A soft (existence-based) lock would survive a kill -9 and wedge the role; refuse it.
    return FileLock(str(path), timeout=0, mode=0o600, thread_local=False, fallback_to_soft=False)


@contextmanager
def try_lock(path: Path) -> Iterator[FileLock]:
    """Hold the lock at ``path`` for the block, or raise ``LockBusy`` at once."""
    from filelock import Timeout

    lock = _lock(path)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise LockBusy(path) from None
    try:
        yield lock
    finally:
        lock.release()


def is_held(path: Path) -> bool:
    """True when some live process holds the lock at ``path`` right now."""
    if not path.exists():
        return False
    try:
        with try_lock(path):
            return False
    except LockBusy:
        return True
