"""Run the real `deskd` console script: in a subprocess, or in-process where the process
boundary is not what a test checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import Desk, Outcome
from console_entry import console  # noqa: F401  (in-process, for the tests here)

DESKD = Path(sys.executable).parent / "deskd"


def deskd(desk: Desk, *args: str | bytes, role: str | None = None, **extra: str) -> Outcome:
    """`deskd ARGS` as its own process with the desk's environment (bytes: raw argv)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(desk.env(role, **extra))
    done = subprocess.run(
        [os.fsencode(str(DESKD)), *(a if isinstance(a, bytes) else os.fsencode(a) for a in args)],
        env=env,
        capture_output=True,
        timeout=60,
    )
    return Outcome(
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
    )


def refused_in_one_line(out: Outcome, code: int = 1) -> str:
    """The stderr of a clean refusal: exit ``code``, one ``deskd: `` line (with ``--json``
    one ``{"error": …}`` line, returned as its message), no traceback."""
    assert out.exit_code == code, (out.exit_code, out.stdout, out.stderr[-2000:])
    assert "Traceback" not in out.stderr, out.stderr[-2000:]
    lines = out.stderr.strip().splitlines()
    if len(lines) == 1 and lines[0].startswith('{"error"'):
        return "deskd: " + str(json.loads(lines[0])["error"]["message"])
    assert len(lines) == 1 and lines[0].startswith("deskd: "), out.stderr[-2000:]
    return lines[0]
