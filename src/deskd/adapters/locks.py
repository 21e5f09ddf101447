"""Role and tick locks, executors' connection slots: ``flock(2)``, kernel-released at death.

Lock files live in ``run/`` under the desk folder (never a world-writable /tmp, where
another user could pre-create them). ``is_held`` lets a later tick tell whether the
executor that claimed a launch is still alive: the kernel drops the lock with the process.

Two ways to take the same lock, which refuse each other (both are an exclusive ``flock`` on
the same file; filelock's own ``lock_descriptor`` documents that it contends with
``FileLock`` this way):

- ``try_lock``, over filelock, for an executor's role lock: held for an agent's whole run,
  by a process that starts agents and threads, where filelock's handling of re-entry, fork
  and odd filesystems is worth its import;
- ``try_flock``, one stdlib ``flock`` call, for the tick lock and for ``is_held`` probes:
  the per-minute tick holds its lock for milliseconds in one thread. Importing filelock
  loads ``logging``, ``threading``, ``secrets`` (``hashlib``, ``random``), ``decimal`` and
  ``platform``: about a fifth of a quiet executing tick's CPU (docs/performance.md,
  "Executing tick"), for one system call.

A PostgreSQL desk's locks are leases (``service/desk/leases.py``) whose owner (``me``) names
its host (``DESKD_HOST_NAME``), its machine, its process id and the process's start time: a
tick on the same machine can tell at once that the holder died (``kill -9``, OOM) instead of
waiting for the lease to lapse, and a reused process id is not mistaken for the holder
(``gone``). A holder on another machine is judged only by its lease's lapse.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from filelock import FileLock


class LockBusy(Exception):
    def __init__(self, path: Path | str) -> None:
        super().__init__(f"another process holds {path}")
        self.path = path


def _lock(path: Path) -> FileLock:
    from filelock import FileLock

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    # A soft (existence-based) lock would survive a kill -9 and wedge the role; refuse it.
    return FileLock(str(path), timeout=0, mode=0o600, thread_local=False, fallback_to_soft=False)


@contextmanager
def try_lock(path: Path) -> Iterator[FileLock]:
    """Hold the lock at ``path`` for the block, or raise ``LockBusy`` at once (filelock)."""
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


# flock reports contention as EWOULDBLOCK (EAGAIN), and as EACCES on some filesystems.
_BUSY = frozenset({errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES})


def flock(path: Path, *, wait: bool = False) -> int:
    """An exclusive ``flock`` on ``path`` (opened without following a symlink, created
    ``0600``; the file stays when released, so a later taker locks the same inode): the
    descriptor holding it, closed to release it. ``LockBusy`` at once unless ``wait``. A
    filesystem without ``flock`` raises ``OSError``, as filelock does when told never to fall
    back to an existence-based lock. The same lock ``try_lock`` takes."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    # os.open's descriptors are not inherited: an executor started while the tick holds
    # its lock does not keep the lock after the tick exits.
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError as exc:
        os.close(fd)
        if exc.errno in _BUSY:
            raise LockBusy(path) from None
        raise
    return fd


@contextmanager
def try_flock(path: Path) -> Iterator[None]:
    """Hold the lock at ``path`` for the block, or raise ``LockBusy`` at once (stdlib)."""
    fd = flock(path)
    try:
        yield
    finally:
        os.close(fd)


def take_slot(run: Path, name: str, slots: int) -> int:
    """One of ``slots`` locks ``run/NAME-K.lock``: the first free one looking from ``pid %
    slots``, else that one waited for (no slot idles while a taker waits). The descriptor
    holding it: closing it, or the holder's death, frees the slot."""
    paths = [run / f"{name}-{(os.getpid() + k) % slots}.lock" for k in range(slots)]
    for path in paths:
        with suppress(LockBusy):
            return flock(path)
    return flock(paths[0], wait=True)


def is_held(path: Path) -> bool:
    """True when some live process holds the lock at ``path`` right now."""
    if not path.exists():
        return False
    try:
        with try_flock(path):
            return False
    except LockBusy:
        return True


def _machine() -> str:
    import socket  # here: a quiet tick takes its lock from this module and loads no socket

    try:
        with open("/etc/machine-id", encoding="ascii") as f:
            found = f.read().strip()
    except OSError:
        found = ""
    # No spaces: the owner is space-separated.
    return (found or socket.gethostname()).replace(" ", "_")


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (Linux); [] elsewhere."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            stat = f.read()
    except OSError:
        return []
    # Counted after the command name, which may itself hold spaces and parentheses.
    return stat.rsplit(")", 1)[-1].split()


def _started(fields: list[str]) -> str:
    """The process's start time in clock ticks since boot (field 22), "-" when unknown."""
    return fields[19] if len(fields) > 19 else "-"


def me(host: str) -> str:
    pid = os.getpid()
    return f"{host.replace(' ', '_')} {_machine()} {pid} {_started(_stat(pid))}"


def gone(owner: str) -> bool:
    """True when ``owner`` was a process on this machine that no longer runs; False when it
    runs, or lives on another machine (only its lease's lapse tells then)."""
    parts = owner.split(" ")
    if len(parts) != 4 or parts[1] != _machine() or not parts[2].isdecimal():
        return False
    pid = int(parts[2])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # another user's process: alive
    fields = _stat(pid)
    if fields and fields[0] == "Z":
        return True  # killed, not yet reaped by its parent: it runs no more
    started = _started(fields)
    return started != "-" and parts[3] != "-" and started != parts[3]
