"""Run git: an argv list (never a shell), stdin closed, a bounded wait, its output as text."""

from __future__ import annotations

import subprocess
from pathlib import Path

GIT_TIMEOUT_S = 120


class GitFailed(Exception):
    """git exited non-zero, could not start, or did not finish: its last stderr line."""


def git(cwd: Path, *args: str, check: bool = True) -> str:
    """``git -C cwd args…``'s stdout; raises GitFailed (when ``check``) on a non-zero exit."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(cwd), *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=GIT_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitFailed(f"git {args[0]}: {exc}") from None
    if check and proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        raise GitFailed(f"git {args[0]}: {tail}")
    return proc.stdout if proc.returncode == 0 else ""
