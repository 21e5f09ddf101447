"""A pytest session of its own, in a scratch folder, on this suite's fixtures: for tests of
the fixtures themselves (which server a worker uses, what the database pool hands on)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
FIXTURE_FILES = ("conftest.py", "pg_databases.py", "cpu_log.py")


def run_inner_session(
    folder: Path, tests: dict[str, str], *pytest_args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """Copy the fixtures into ``folder``, write ``tests`` (relative path: source) beside
    them and run pytest there with ``pytest_args``, no DESKD_* of this session's but ``env``."""
    for name in FIXTURE_FILES:
        shutil.copy(TESTS / name, folder / name)
    for relative, source in tests.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(source, encoding="utf-8")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args],
        cwd=folder,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=600,  # a bound for a hang only: the inner session ends on its own
    )
