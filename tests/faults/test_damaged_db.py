"""A damaged database stops writes instead of taking them (real processes: every
command answers through one error boundary, deskd.cli.common).

Damage found mid-query, not at open: the first command that reads the damaged page exits 3 in
one line naming `deskd doctor` and remembers it in run/damaged; from then on every command
refuses before opening the file, so not a byte more is written into it. `deskd doctor` runs
the full integrity_check (quick_check misses an index that lost rows of its table), says when
the database is write-locked, and clears run/damaged once the file is sound again. A DESKD_DB
that is no regular file (/dev/null) is refused and left as it is.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest
from procs import deskd, refused_in_one_line

from conftest import Desk
from db_damage import ENQUEUE, damage_a_middle_leaf_of_items, populated

pytestmark = pytest.mark.sqlite_only


def _files(desk: Desk) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(desk.db_path.parent.iterdir())
    }


EVERY = [
    ("status",),
    ("status", "--json"),
    ("tick",),
    ("tick", "--execute"),
    ("inbox", "list", "--for", "alpha"),
    (*ENQUEUE, "--title", "after"),
    ("wake", "list"),
    ("task", "list"),
    ("task", "add", "t", "--for", "alpha"),
    ("heartbeat", "--role", "alpha"),
    ("send", "--from", "alpha", "--to", "beta", "--subject", "s", "--body", "b"),
    ("ledger",),
]


def test_damage_found_mid_query_stops_every_later_command_and_every_write(desk: Desk) -> None:
    populated(desk)
    good = desk.home / "good.db"
    shutil.copy(desk.db_path, good)
    damage_a_middle_leaf_of_items(desk.db_path)
    # `status` walks the items: exit 3, one line, no traceback.
    line = refused_in_one_line(deskd(desk, "status"), 3)
    assert "deskd doctor" in line and str(desk.db_path) in line and "malformed" in line
    files = _files(desk)
    for args in EVERY:
        line = refused_in_one_line(deskd(desk, *args), 3)
        assert "deskd doctor" in line and "damaged" in line, (args, line)
    assert _files(desk) == files  # not a byte written
    # Doctor finds it; after a restore from the backup it clears the marker and work goes on.
    doctor = deskd(desk, "doctor", "--json")
    assert doctor.exit_code == 1
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["integrity"]["ok"] is False
    shutil.copy(good, desk.db_path)
    assert deskd(desk, "doctor").exit_code in (0, 1)
    assert not (desk.home / "run" / "damaged").exists()
    assert deskd(desk, *ENQUEUE, "--title", "after restore").exit_code == 0


def test_the_session_hook_writes_nothing_into_a_database_found_damaged(desk: Desk) -> None:
    """The hook always exits 0 (an agent must never stall), but once a command found the file
    damaged it writes no heartbeat into it, and says why in logs/hook.log."""
    import subprocess
    import sys

    populated(desk)
    damage_a_middle_leaf_of_items(desk.db_path)
    refused_in_one_line(deskd(desk, "status"), 3)
    files = _files(desk)
    payload = json.dumps(
        {
            "session_id": "0b3c6d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d",
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "cwd": str(desk.home),
        }
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(desk.env(role="alpha"))
    done = subprocess.run(
        [sys.executable, "-m", "deskd.hook"],
        input=payload,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and done.stdout == ""
    assert _files(desk) == files  # no heartbeat written
    log = (desk.home / "logs" / "hook.log").read_text()
    assert "damaged" in log and "deskd doctor" in log


def test_a_write_first_after_damage_is_refused_once_a_read_found_it(desk: Desk) -> None:
    """The click path (`wake list`, `task list`) refuses as well once a read found damage."""
    populated(desk)
    damage_a_middle_leaf_of_items(desk.db_path)
    refused_in_one_line(deskd(desk, "inbox", "list", "--for", "alpha", "--limit", "500"), 3)
    for args in (("wake", "list"), ("task", "list"), (*ENQUEUE, "--title", "x")):
        assert "deskd doctor" in refused_in_one_line(deskd(desk, *args), 3)


def _drop_three_rows_from_the_unread_index(db: Path) -> list[int]:
    """Three unread rows the index items_unread does not list: quick_check passes,
    integrity_check says `row N missing from index items_unread`."""

    def run(*statements: str) -> None:
        conn = sqlite3.connect(db, isolation_level=None)
        for statement in statements:
            conn.execute(statement)
        conn.close()

    def index_sql(text: str) -> None:
        conn = sqlite3.connect(db, isolation_level=None)
        version = int(conn.execute("PRAGMA schema_version").fetchone()[0])
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'items_unread'", (text,))
        conn.execute(f"PRAGMA schema_version = {version + 1}")
        conn.close()

    conn = sqlite3.connect(db)
    ids = [r[0] for r in conn.execute("SELECT id FROM items ORDER BY id LIMIT 3")]
    original = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'items_unread'")
    sql = str(original.fetchone()[0])
    conn.close()
    listed = ",".join(map(str, ids))
    run(f"UPDATE items SET read_at = 1 WHERE id IN ({listed})")
    index_sql(sql.replace("WHERE read_at IS NULL", "WHERE read_at IS NULL AND id < 0"))
    run(f"UPDATE items SET read_at = NULL WHERE id IN ({listed})")
    index_sql(sql)
    return ids


def _an_index_missing_rows(desk: Desk) -> None:
    populated(desk, 30)
    desk.close()
    _drop_three_rows_from_the_unread_index(desk.db_path)


def test_doctor_runs_integrity_check_and_finds_an_index_missing_rows(desk: Desk) -> None:
    _an_index_missing_rows(desk)
    conn = sqlite3.connect(desk.db_path)
    assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"  # what doctor ran before
    conn.close()
    doctor = deskd(desk, "doctor", "--json")
    assert doctor.exit_code == 1
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["integrity"]["ok"] is False
    assert "missing from index items_unread" in checks["integrity"]["detail"]


def test_doctor_says_when_the_database_is_write_locked(desk: Desk) -> None:
    desk.ok(*ENQUEUE, "--title", "t")
    holder = sqlite3.connect(desk.db_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        doctor = deskd(desk, "doctor", "--json")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["write lock"]["level"] != "ok"
    assert "write-locked" in checks["write lock"]["detail"]
    unlocked = json.loads(deskd(desk, "doctor", "--json").stdout)["checks"]
    assert {c["name"]: c["level"] for c in unlocked}["write lock"] == "ok"


@pytest.mark.parametrize("target", ["device", "folder", "fifo"])
def test_a_database_that_is_no_regular_file_is_refused_and_left_alone(
    desk: Desk, target: str
) -> None:
    """`DESKD_DB=/dev/null deskd status` once made /dev/null 0600 for every user. The device
    here is a node of its own (the null device's numbers) in the test's folder, never the
    machine's /dev/null, so a regression cannot break the machine running the tests."""
    path = desk.home / target
    if target == "device":
        try:
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("creating a device node needs root")
        path.chmod(0o666)
    elif target == "folder":
        path.mkdir()
    else:
        os.mkfifo(path)
    before = path.stat()
    for args in (("status",), (*ENQUEUE, "--title", "x"), ("wake", "list")):
        line = refused_in_one_line(deskd(desk, *args, DESKD_DB=str(path)), 3)
        assert "not a regular file" in line, line
    after = path.stat()
    assert stat.S_IMODE(after.st_mode) == stat.S_IMODE(before.st_mode)
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)
    doctor = deskd(desk, "doctor", DESKD_DB=str(path))
    assert doctor.exit_code == 1 and "not a regular file" in doctor.stdout


def test_doctor_marks_the_desk_damaged_and_prune_deletes_nothing_from_it(desk: Desk) -> None:
    """Index damage only integrity_check sees: doctor marks the desk damaged, so no command
    writes into it; prune checks with integrity_check too and deletes nothing."""
    _an_index_missing_rows(desk)
    files = _files(desk)
    line = refused_in_one_line(deskd(desk, "prune", "--older-than", "1d", "--force"), 3)
    assert "missing from index" in line and "backup" in line
    assert (desk.home / "run" / "damaged").exists() and _files(desk) == files
    (desk.home / "run" / "damaged").unlink()
    assert deskd(desk, "doctor").exit_code == 1
    assert (desk.home / "run" / "damaged").exists()
    assert "damaged" in refused_in_one_line(deskd(desk, *ENQUEUE, "--title", "after"), 3)
    assert _files(desk) == files
