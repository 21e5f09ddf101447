"""`deskd status` (the board): roles, overdue items, health — and read paths never write."""

from __future__ import annotations

import os
import pty
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from conftest import DESK_TOML, Desk

S1 = "3f1c9a7e-5b2d-4c8e-9a61-0d2e7b4f8c13"


def set_meta(desk: Desk, key: str, value: str) -> None:
    conn = sqlite3.connect(desk.db_path)
    try:
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )
        conn.commit()
    finally:
        conn.close()


def enqueue(desk: Desk, role: str, title: str, *extra: str) -> int:
    args = ("inbox", "enqueue", "--for", role, "--source", "alert", "--title", title, *extra)
    return int(desk.json(*args)["id"])


def tty_run(desk: Desk, *args: str) -> str:
    """The CLI as a terminal sees it: a real ``deskd`` process writing to a pseudo-terminal."""
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")} | desk.env()
    proc = subprocess.Popen(
        [sys.executable, "-m", "deskd", *args], stdout=follower, stderr=subprocess.PIPE, env=env
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return b"".join(chunks).decode()


# -- what it shows -------------------------------------------------------------------------


def test_it_has_the_contracts_shape(desk: Desk) -> None:
    board = desk.json("status")
    assert {"roles", "attempts", "pages", "health", "overdue"} <= set(board)
    assert board["attempts"] == []
    assert board["pages"] == []
    assert [r["role"] for r in board["roles"]] == ["alpha", "beta", "gamma"]
    assert {r["presence"] for r in board["roles"]} == {"never"}
    health = board["health"]
    assert {"last_tick_at", "last_tick_age_s", "db", "desk"} <= set(health)
    assert health["db"] == str(desk.db_path)
    assert health["desk"] == str(desk.home / "deskd.toml")


def test_it_shows_presence_and_activity_per_role(desk: Desk) -> None:
    desk.ok("status", "set", "--role", "alpha", "--activity", "triaging #42")
    desk.ok("status", "set", "--role", "beta", "--state", "resting")
    desk.ok("heartbeat", "--role", "gamma")
    desk.advance(minutes=11)
    desk.ok("heartbeat", "--role", "alpha")
    roles = {r["role"]: r for r in desk.json("status")["roles"]}
    assert {n: r["presence"] for n, r in roles.items()} == {
        "alpha": "online",
        "beta": "idle",
        "gamma": "dead",
    }
    assert roles["alpha"]["activity"] == "triaging #42"


def test_it_says_no_tick_has_run_yet(desk: Desk) -> None:
    health = desk.json("status")["health"]
    assert health["last_tick_at"] is None
    assert health["last_tick_age_s"] is None
    assert "deskd cron-line" in health["message"]
    assert "no tick has run yet: see `deskd cron-line`" in desk.ok("status").stdout


@pytest.mark.parametrize("stored", ["ms", "iso"])
def test_it_shows_the_last_ticks_age(desk: Desk, stored: str) -> None:
    desk.ok("status")  # creates the database
    value = str(desk.now_ms) if stored == "ms" else "2026-12-01T14:00:00Z"
    set_meta(desk, "last_tick_at", value)
    desk.advance(seconds=42)
    health = desk.json("status")["health"]
    assert health["last_tick_at"] == "2026-12-01T14:00:00Z"
    assert health["last_tick_age_s"] == 42
    assert health["tick_stale"] is False
    assert "last tick: 42s ago" in desk.ok("status").stdout
    desk.advance(minutes=5)
    assert desk.json("status")["health"]["tick_stale"] is True


def test_it_lists_overdue_items_once_their_sla_passes(desk: Desk) -> None:
    normal = enqueue(desk, "alpha", "disk 91%")  # 30 min SLA
    urgent = enqueue(desk, "beta", "5xx above 2%", "--priority", "urgent")  # 5 min SLA
    desk.advance(minutes=5)
    board = desk.json("status")
    assert [i["item_id"] for i in board["overdue"]] == [urgent]
    desk.advance(minutes=25)
    board = desk.json("status")
    assert [i["item_id"] for i in board["overdue"]] == [urgent, normal]
    first = board["overdue"][0]
    assert (first["to"], first["priority"], first["state"], first["overdue_s"]) == (
        "beta",
        "urgent",
        "overdue",
        25 * 60,
    )
    counts = {r["role"]: (r["unread"], r["overdue"]) for r in board["roles"]}
    assert counts == {"alpha": (1, 1), "beta": (1, 1), "gamma": (0, 0)}
    desk.ok("inbox", "ack", "--for", "beta", "--id", str(urgent))
    assert [i["item_id"] for i in desk.json("status")["overdue"]] == [normal]


def test_it_prints_a_readable_board_without_colour_off_a_terminal(desk: Desk) -> None:
    desk.ok("status", "set", "--role", "alpha", "--activity", "triaging #42")
    enqueue(desk, "beta", "disk 91%", "--priority", "urgent")
    desk.advance(minutes=10)
    text = desk.ok("status").stdout
    assert "\x1b[" not in text
    assert "desk test" in text
    assert "past their SLA (1): 1 overdue" in text
    assert "disk 91%" in text
    alpha = next(line for line in text.splitlines() if line.startswith("alpha"))
    assert alpha.split()[:2] == ["alpha", "dead"]
    assert "10m ago" in alpha


def test_it_colours_dead_roles_and_overdue_items_red_on_a_terminal(desk: Desk) -> None:
    desk.ok("status", "set", "--role", "alpha")
    enqueue(desk, "beta", "disk 91%", "--priority", "urgent")
    desk.advance(minutes=10)
    text = tty_run(desk, "status")
    red = "\x1b[31m"
    dead_line = next(line for line in text.splitlines() if line.startswith("alpha"))
    assert red + "dead" in dead_line
    overdue_line = next(line for line in text.splitlines() if "disk 91%" in line)
    assert red in overdue_line


def test_it_shows_a_desk_without_roles(desk: Desk) -> None:
    desk.write_desk('[desk]\nname = "empty"\ntimezone = "America/New_York"\n')
    assert desk.json("status")["roles"] == []
    assert "no roles" in desk.ok("status").stdout


# -- read paths never write (lesson 43) ---------------------------------------------------


READS = [("status",), ("status", "--json"), ("roles",), ("roles", "--json")]


def busy_desk(desk: Desk) -> None:
    """A desk with sessions in every state and overdue items: what a board reads."""
    desk.ok("status", "set", "--role", "alpha", "--session-id", S1)
    desk.ok("status", "set", "--role", "beta", "--state", "resting")
    enqueue(desk, "gamma", "disk 91%", "--priority", "urgent")
    desk.ok("inbox", "list", "--for", "gamma", role="gamma")  # seen by the role itself


@pytest.mark.parametrize("args", READS)
def test_it_changes_no_row_when_reading(desk: Desk, args: tuple[str, ...]) -> None:
    busy_desk(desk)
    # A new desk role and a changed title: a write would sync them into the roles table.
    desk.write_desk(DESK_TOML.replace('"Alpha"', '"Alpha Prime"') + '\n[[roles]]\nname = "delta"\n')
    desk.advance(minutes=20)
    before = desk.dump()
    desk.ok(*args)
    assert desk.dump() == before


def test_it_commits_nothing_while_reading(desk: Desk) -> None:
    busy_desk(desk)
    watcher = sqlite3.connect(desk.db_path)
    try:
        version = watcher.execute("PRAGMA data_version").fetchone()[0]
        for args in READS:
            desk.ok(*args)
        assert watcher.execute("PRAGMA data_version").fetchone()[0] == version
        desk.ok("heartbeat", "--role", "alpha")  # a write does move it: the check can fail
        assert watcher.execute("PRAGMA data_version").fetchone()[0] != version
    finally:
        watcher.close()


@contextmanager
def write_lock_held(desk: Desk) -> Iterator[None]:
    holder = sqlite3.connect(desk.db_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_it_reads_while_another_process_holds_the_write_lock(desk: Desk) -> None:
    busy_desk(desk)
    desk.write_desk(DESK_TOML + '\n[[roles]]\nname = "delta"\n')
    with write_lock_held(desk):
        for args in READS:
            desk.ok(*args)
        roles = {r["role"] for r in desk.json("roles")}
    assert "delta" in roles
