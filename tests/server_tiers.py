"""What the tiers that run a real server share (Prometheus, Alertmanager, dovecot): finding
its binary (skipped with a one-line reason where absent, mandatory under ``CI=true``),
polling for an event under a deadline only a real hang reaches, and stopping it."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest


def find_binary(tier: str, env: str, names: tuple[str, ...], package: str) -> str:
    """The tier's server binary: ``$env``, else the first of ``names`` on PATH or in the
    usual folders; without one the tier is skipped (failed under ``CI=true``)."""
    found = os.environ.get(env) or next(filter(None, map(shutil.which, names)), None)
    for name in names if found is None else ():
        for folder in ("/usr/bin", "/usr/sbin"):
            if Path(folder, name).exists():
                found = found or f"{folder}/{name}"
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{tier} tier is mandatory under CI=true: no {names[0]} binary")
        pytest.skip(f"{tier} tier: no {names[0]} binary (apt-get install {package})")
    return found


def wait_for(what: str, probe: Any, deadline_s: float = 120.0) -> Any:
    """Poll ``probe()`` until it returns something truthy; fail after ``deadline_s``."""
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            found = probe()
        except (httpx.HTTPError, OSError):
            found = None
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def stop(proc: subprocess.Popen[Any]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
