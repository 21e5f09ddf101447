"""Ticks as separate processes of simulated hosts (``DESKD_HOST_NAME``) on one desk: for the
multi-host tests on PostgreSQL, straight to the server or through PgBouncer."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import Desk


def host_env(desk: Desk, host: str) -> dict[str, str]:
    """This environment without its DESKD_* variables, plus the desk's, as ``host``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(desk.env(DESKD_HOST_NAME=host))
    return env


def start_tick(desk: Desk, host: str, *extra: str) -> subprocess.Popen[str]:
    """``deskd tick --execute --json`` started on ``host``, not waited for."""
    return subprocess.Popen(
        [sys.executable, "-m", "deskd", "tick", "--execute", "--json", *extra],
        env=host_env(desk, host),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(procs: list[subprocess.Popen[str]], *, bound_s: float = 300) -> list[dict[str, object]]:
    """Each tick's JSON, once it exited 0 (the bound is for a real hang only)."""
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=bound_s)
        assert p.returncode == 0, err
        outs.append(json.loads(out))
    return outs
