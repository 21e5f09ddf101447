"""The role lock helper: non-blocking, kernel-held (released when the holder dies), under run/."""

from __future__ import annotations

import fcntl
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import SoftFileLock

from conftest import Desk
from deskd.adapters.locks import LockBusy, _lock, is_held, try_lock
from deskd.config.settings_model import validate_settings

HOLDER = """
import sys, time
from pathlib import Path
from deskd.adapters.locks import try_lock
with try_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(120)
"""


@pytest.fixture
def lock_path(desk: Desk) -> Path:
    return validate_settings().run_path / "role-alpha.lock"


@pytest.fixture
def holder(lock_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the role lock until it is killed."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


def test_it_keeps_lock_files_in_the_desks_run_folder(desk: Desk, lock_path: Path) -> None:
    assert lock_path == desk.home / "run" / "role-alpha.lock"
    with try_lock(lock_path):
        assert lock_path.exists()
        assert stat.S_IMODE(lock_path.stat().st_mode) & 0o077 == 0  # no one else may open it
    assert stat.S_IMODE(lock_path.parent.stat().st_mode) == 0o700


def test_it_refuses_at_once_while_another_process_holds_it(
    lock_path: Path, holder: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # "At once" is that it never waits (filelock polls with time.sleep while it waits), not
    # that it was quick on this machine.
    waited: list[float] = []
    sleep, here = time.sleep, threading.get_ident()

    def recorded(seconds: float) -> None:
        if threading.get_ident() == here:
            waited.append(seconds)
        sleep(seconds)

    with monkeypatch.context() as m:
        m.setattr(time, "sleep", recorded)
        with pytest.raises(LockBusy) as refused, try_lock(lock_path):
            pass
    assert waited == []
    assert refused.value.path == lock_path
    assert is_held(lock_path)


def test_it_is_released_when_the_holder_is_killed(
    lock_path: Path, holder: subprocess.Popen[str]
) -> None:
    assert is_held(lock_path)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=10)
    assert lock_path.exists()  # the file stays; the kernel dropped the lock with the process
    assert not is_held(lock_path)
    with try_lock(lock_path) as lock:
        assert lock.is_locked


def test_it_is_a_kernel_lock_not_a_soft_one(lock_path: Path, holder: subprocess.Popen[str]) -> None:
    # A soft lock is a file's existence: it survives kill -9 and wedges the role. A kernel
    # flock on the same file is refused while the holder lives.
    with open(lock_path, "rb") as fh, pytest.raises(BlockingIOError):
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    lock = _lock(lock_path)
    assert not isinstance(lock, SoftFileLock)
    settings = getattr(lock, "_settings", None)
    if settings is not None and hasattr(settings, "fallback_to_soft"):
        assert settings.fallback_to_soft is False


def test_it_is_free_when_nobody_ever_took_it(lock_path: Path) -> None:
    assert not is_held(lock_path)
    with try_lock(lock_path):
        pass
    assert not is_held(lock_path)


FLOCK_HOLDER = HOLDER.replace("try_lock", "try_flock")


@pytest.mark.parametrize(
    ("holder_code", "taker"),
    [(HOLDER, "try_flock"), (FLOCK_HOLDER, "try_lock"), (FLOCK_HOLDER, "try_flock")],
    ids=["filelock holds, stdlib asks", "stdlib holds, filelock asks", "stdlib both"],
)
def test_the_tick_locks_stdlib_flock_and_filelock_refuse_each_other(
    lock_path: Path, holder_code: str, taker: str
) -> None:
    # The tick takes its lock with one stdlib flock, the executor its role lock with
    # filelock: the same kernel lock, so either refuses the other, and a kill frees it.
    from deskd.adapters import locks

    proc = subprocess.Popen(
        [sys.executable, "-c", holder_code, str(lock_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        with pytest.raises(LockBusy), getattr(locks, taker)(lock_path):
            pass
        assert is_held(lock_path)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert not is_held(lock_path)
        with getattr(locks, taker)(lock_path):
            assert stat.S_IMODE(lock_path.stat().st_mode) & 0o077 == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
