"""Who holds a lease, and whether that holder is gone: a process on this machine.

An owner names its host (``DESKD_HOST_NAME``), its machine, its process id and the process's
start time: a tick on the same machine can tell at once that the holder died (``kill -9``,
OOM) instead of waiting for the lease to lapse, and a reused process id is not mistaken for
the holder. A holder on another machine is judged only by its lease's lapse.
"""

from __future__ import annotations

import os
import socket


def _machine() -> str:
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
    """This process as a lease owner."""
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
