"""Database faults end cleanly: locked, read-only, corrupt at open, corrupt mid-page, deleted.

Every command answers exit 3 with the database's path and `deskd doctor`'s advice (never a
traceback, never exit 0 into a damaged file); the session hook still exits 0. A desk that had
a database and lost it is refused — only `deskd init --new-db` creates an empty one again.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Desk, urgent

HOOK = Path(sys.executable).parent / "deskd-session-hook"
COMMANDS = [
    ("status",),
    ("tick",),
    ("inbox", "list", "--for", "alpha"),
    ("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x"),
    ("ledger",),
    ("prune", "--older-than", "1d"),
]


def _hook(desk: Desk) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(DESKD_HOME=str(desk.home), DESKD_ROLE="alpha", DESKD_NOW=desk.now_iso)
    payload = {"hook_event_name": "PostToolUse", "session_id": "s1", "tool_name": "Read"}
    return subprocess.run(
        [str(HOOK)], input=json.dumps(payload).encode(), env=env, capture_output=True, timeout=30
    )


def _refused_3(desk: Desk, *args: str) -> str:
    out = desk.run(*args)
    assert out.exit_code == 3, (args, out.exit_code, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr
    assert str(desk.db_path) in out.stderr
    return out.stderr


def _populated(desk: Desk, count: int = 300) -> None:
    for i in range(count):
        desk.ok(
            "inbox",
            "enqueue",
            "--for",
            "alpha",
            "--source",
            "alert",
            "--title",
            f"t{i}",
            "--body",
            "b" * 200,
        )
    conn = sqlite3.connect(desk.db_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _page_of(db: Path, table: str) -> tuple[int, int]:
    """(page size, the number of a leaf page holding rows of ``table``)."""
    conn = sqlite3.connect(db)
    try:
        size = int(conn.execute("PRAGMA page_size").fetchone()[0])
        root = int(
            conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[
                0
            ]
        )
    finally:
        conn.close()
    return size, root


def test_corrupt_at_open_is_exit_3_for_every_command_and_0_for_the_hook(desk: Desk) -> None:
    urgent(desk)
    desk.db_path.write_bytes(b"this is not a database" * 200)
    for args in COMMANDS:
        assert "deskd doctor" in _refused_3(desk, *args)
    assert _hook(desk).returncode == 0


def test_corrupt_mid_page_is_exit_3_and_enqueue_does_not_write_into_it(desk: Desk) -> None:
    _populated(desk)
    size, root = _page_of(desk.db_path, "items")
    data = bytearray(desk.db_path.read_bytes())
    # The items table's root (an interior page for 300 rows): every read of items walks it.
    start = (root - 1) * size
    data[start + 8 : start + size - 8] = b"\xa5" * (size - 16)
    desk.db_path.write_bytes(bytes(data))
    for args in COMMANDS:
        assert "malformed" in _refused_3(desk, *args)
    assert _hook(desk).returncode == 0
    doctor = desk.run("doctor", "--json")
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["integrity"]["ok"] is False


def test_a_deleted_database_is_refused_not_recreated(desk: Desk) -> None:
    item = urgent(desk)
    desk.db_path.unlink()
    for args in COMMANDS:
        stderr = _refused_3(desk, *args)
        assert "deskd init --new-db" in stderr
    assert not desk.db_path.exists()
    assert _hook(desk).returncode == 0
    assert not desk.db_path.exists()
    # Only an explicit `deskd init --new-db` starts over (the desk file is left as it is).
    before = (desk.home / "deskd.toml").read_text()
    desk.ok("init", "--new-db")
    assert (desk.home / "deskd.toml").read_text() == before
    assert desk.json("inbox", "list", "--for", "alpha") == []
    assert urgent(desk) == 1 and item == 1


def test_a_0_byte_database_is_refused_like_a_deleted_one(desk: Desk) -> None:
    urgent(desk)
    for name in ("deskd.db-wal", "deskd.db-shm"):
        (desk.db_path.parent / name).unlink(missing_ok=True)
    desk.db_path.write_bytes(b"")
    for args in COMMANDS:
        _refused_3(desk, *args)
    assert _hook(desk).returncode == 0
    assert desk.db_path.stat().st_size == 0


def test_the_whole_data_folder_gone_is_refused_too(desk: Desk) -> None:
    urgent(desk)
    for child in desk.db_path.parent.iterdir():
        child.unlink()
    desk.db_path.parent.rmdir()
    _refused_3(desk, "status")


def test_a_desk_that_never_had_a_database_gets_one_on_first_use(desk: Desk) -> None:
    assert not desk.db_path.exists()
    urgent(desk)
    assert desk.db_path.stat().st_size > 0
    assert str(desk.db_path) in (desk.home / "run" / "databases").read_text()


def test_init_new_db_refuses_to_replace_a_database_that_is_there(desk: Desk) -> None:
    urgent(desk)
    out = desk.run("init", "--new-db")
    assert out.exit_code == 1
    assert "already" in out.stderr
    assert len(desk.json("inbox", "list", "--for", "alpha")) == 1


def test_a_locked_database_is_exit_3_after_the_busy_timeout(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    urgent(desk)
    monkeypatch.setattr("deskd.store.db.DEFAULT_BUSY_MS", 200)
    holder = sqlite3.connect(desk.db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        stderr = _refused_3(
            desk, "inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "y"
        )
        assert "locked" in stderr
        assert _hook(desk).returncode == 0
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(desk.json("inbox", "list", "--for", "alpha")) == 1


def _read_only(paths: list[Path], on: bool) -> None:
    """Make the files unwritable: chmod for a normal user; root writes whatever the mode
    says, so for root the immutable attribute (chattr +i) does it."""
    if os.geteuid() != 0:
        for path in paths:
            path.chmod(0o444 if on else 0o600)
        return
    flag = "+i" if on else "-i"
    done = subprocess.run(["chattr", flag, *map(str, paths)], capture_output=True, check=False)
    if done.returncode != 0 and on:
        pytest.skip(f"chattr +i is not available here: {done.stderr.decode().strip()}")


def test_a_read_only_database_is_exit_3_for_writes_and_the_hook_is_0(desk: Desk) -> None:
    urgent(desk)
    files = sorted(desk.db_path.parent.iterdir())
    _read_only(files, True)
    try:
        stderr = _refused_3(
            desk, "inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "z"
        )
        assert "deskd doctor" in stderr
        assert _hook(desk).returncode == 0
    finally:
        _read_only(files, False)
    assert len(desk.json("inbox", "list", "--for", "alpha")) == 1
