"""The database, logs (agent transcripts) and run/ are 0700 folders and 0600 files under a
default umask, from `deskd init` and from a first command alike; doctor warns otherwise."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Desk, urgent

FAKES = Path(__file__).resolve().parents[1] / "fakes"
HOOK = Path(sys.executable).parent / "deskd-session-hook"


@pytest.fixture(autouse=True)
def default_umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _exposed(home: Path) -> list[str]:
    found = []
    for folder in ("data", "logs", "run"):
        for path in [home / folder, *(home / folder).rglob("*")]:
            mode = stat.S_IMODE(path.stat().st_mode)
            if mode & 0o077:
                found.append(f"{path.relative_to(home)} {mode:o}")
    return found


def _use_the_desk(desk: Desk) -> None:
    desk.setenv("DESKD_AGENT_CMD", str(FAKES / "fake-claude"))
    urgent(desk)
    out = desk.json("tick", "--execute", "--wait")
    assert out["launched"], out
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(DESKD_HOME=str(desk.home), DESKD_ROLE="nobody-here")
    subprocess.run([str(HOOK)], input=b"{}", env=env, timeout=30, check=True)  # logs a line


def test_a_first_command_creates_everything_private(desk: Desk) -> None:
    _use_the_desk(desk)
    assert (desk.home / "logs" / "hook.log").exists()
    assert list((desk.home / "logs" / "agents" / "alpha").glob("*.log"))
    reader = desk.db()  # a live connection: the -wal and -shm files exist meanwhile
    try:
        reader.execute("SELECT COUNT(*) FROM items").fetchone()
        assert (desk.home / "data" / "deskd.db-wal").exists()
        assert _exposed(desk.home) == []
    finally:
        reader.close()
    checks = {c["name"]: c for c in json.loads(desk.run("doctor", "--json").stdout)["checks"]}
    assert checks["file modes"]["level"] == "ok"


def test_init_creates_private_folders(desk: Desk) -> None:
    (desk.home / "deskd.toml").unlink()
    desk.ok("init")
    assert _exposed(desk.home) == []


def test_doctor_warns_on_a_group_or_world_readable_file(desk: Desk) -> None:
    urgent(desk)
    desk.db_path.chmod(0o644)
    (desk.home / "logs").mkdir(mode=0o755, exist_ok=True)
    (desk.home / "logs").chmod(0o755)
    checks = {c["name"]: c for c in json.loads(desk.run("doctor", "--json").stdout)["checks"]}
    assert checks["file modes"]["level"] == "warn"
    assert "deskd.db (644)" in checks["file modes"]["detail"]
    assert "logs (755)" in checks["file modes"]["detail"]
