"""Helpers for the session hook tests: run the real console script against a ``desk``.

(A helper module, not a conftest: a second ``conftest`` module would shadow
``from conftest import Desk`` elsewhere in the suite.)

The hook is run as a subprocess (``deskd-session-hook`` next to the interpreter), with a
Claude Code hook payload on stdin and the desk's environment (home, pinned clock, role).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"
"""Hook input as Claude Code sends it, captured from real sessions (tests/hook/fixtures)."""

HOOK = Path(sys.executable).parent / "deskd-session-hook"
SESSION = "3f1c9a7e-5b2d-4c8e-9a61-0d2e7b4f8c13"  # the fixtures' session_id


def both_backends(metafunc: Any) -> None:
    """``pytest_generate_tests`` for a hook test module whose tests touch the database: each
    ``desk`` test runs once per backend (the conftest's ``BOTH_BACKENDS`` does this for whole
    folders; most of this folder is about input handling and stays on SQLite)."""
    if "backend" in metafunc.fixturenames and not metafunc.definition.get_closest_marker(
        "sqlite_only"
    ):
        metafunc.parametrize("backend", ["sqlite", "postgresql"], indirect=True)


def fixture(name: str, **overrides: Any) -> dict[str, Any]:
    """A fixture payload (``post_tool_use`` …) with fields replaced."""
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    data.update(overrides)
    return data


@dataclass
class HookRun:
    code: int
    stdout: str
    stderr: str

    def context(self) -> str:
        """The additionalContext of the one JSON document the hook printed."""
        doc = json.loads(self.stdout)
        return str(doc["hookSpecificOutput"]["additionalContext"])

    def event(self) -> str:
        return str(json.loads(self.stdout)["hookSpecificOutput"]["hookEventName"])


def hook_env(home: Path, *, role: str | None, now: str | None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env["DESKD_HOME"] = str(home)
    if now is not None:
        env["DESKD_NOW"] = now
    if role is not None:
        env["DESKD_ROLE"] = role
    env.update(extra)
    return env


def run_hook(
    stdin: bytes | str | dict[str, Any] | int,
    *,
    env: dict[str, str],
    cwd: Path | None = None,
) -> HookRun:
    """Run the console script once; ``stdin`` is a payload, raw bytes/text, or a file descriptor."""
    if isinstance(stdin, dict):
        stdin = json.dumps(stdin)
    if isinstance(stdin, str):
        stdin = stdin.encode()
    kwargs: dict[str, Any] = {"input": stdin} if isinstance(stdin, bytes) else {"stdin": stdin}
    done = subprocess.run(
        [str(HOOK)], env=env, cwd=cwd, capture_output=True, timeout=60, check=False, **kwargs
    )
    return HookRun(done.returncode, done.stdout.decode(), done.stderr.decode())


class HookDesk:
    """The shared ``desk`` plus what the hook tests need: run the hook, read rows, enqueue."""

    def __init__(self, desk: Any) -> None:
        self.desk = desk

    def env(self, role: str | None = "alpha", **extra: str) -> dict[str, str]:
        if self.desk.url is not None:  # a PostgreSQL desk: the hook finds it by DESKD_DB
            extra = {"DESKD_DB": self.desk.url, **extra}
        return hook_env(self.desk.home, role=role, now=self.desk.now_iso, **extra)

    def hook(
        self, stdin: bytes | str | dict[str, Any] | int, role: str | None = "alpha", **extra: str
    ) -> HookRun:
        return run_hook(stdin, env=self.env(role, **extra))

    def enqueue(
        self, role: str, title: str, *, priority: str = "normal", body: str = "", ref: str = ""
    ) -> int:
        args = ["inbox", "enqueue", "--for", role, "--source", "alert", "--title", title]
        args += ["--priority", priority, "--body", body]
        if ref:
            args += ["--ref", ref]
        return int(self.desk.json(*args)["id"])

    def rows(self, sql: str, *params: Any) -> list[sqlite3.Row]:
        conn = self.desk.db()
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    def sessions(self, role: str = "alpha") -> list[sqlite3.Row]:
        return self.rows("SELECT * FROM sessions WHERE role = ? ORDER BY id", role)

    def item(self, item_id: int) -> sqlite3.Row:
        return self.rows("SELECT * FROM items WHERE id = ?", item_id)[0]

    def shown_ids(self, role: str = "alpha") -> list[int]:
        rows = self.rows("SELECT id FROM items WHERE role = ? AND seen_at IS NOT NULL", role)
        return sorted(int(r["id"]) for r in rows)

    @property
    def log(self) -> Path:
        return self.desk.home / "logs" / "hook.log"

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8") if self.log.exists() else ""
