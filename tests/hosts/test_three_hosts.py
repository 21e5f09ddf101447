"""Three simulated hosts (processes with different DESKD_HOST_NAME) on one desk database.

alpha is bound to host-a, beta to host-b, gamma to none. Every tick is a real `deskd tick
--execute` process and every launch a real executor running tests/fakes/fake-claude. On
PostgreSQL the locks are the database's; on SQLite the same hosts share one machine's files.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from conftest import DESK_TOML, Desk, urgent
from host_procs import finish as _finish
from host_procs import start_tick as _tick

FAKES = Path(__file__).resolve().parents[1] / "fakes"
HOSTS = ("host-a", "host-b", "host-c")
RACERS = 2
"""Ticks started at once per host in the racing test: two already race on each host and
across the three; more only adds start-up cost on two cores."""
BOUND = DESK_TOML.replace('title = "Alpha"', 'title = "Alpha"\nhost = "host-a"').replace(
    'title = "Beta"', 'title = "Beta"\nhost = "host-b"'
)


@pytest.fixture
def hosts_desk(desk: Desk, tmp_path: Path) -> Desk:
    desk.write_desk(BOUND)
    desk.setenv("DESKD_AGENT_CMD", str(FAKES / "fake-claude"))
    desk.setenv("DESKD_WAKE_EXECUTE", "1")
    desk.monkeypatch.setenv("FAKE_ARGV_FILE", str(tmp_path / "argv.jsonl"))
    return desk


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (dead, not yet reaped by its parent) counts as gone.
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


def _launches(desk: Desk) -> dict[str, list[tuple[object, ...]]]:
    conn = desk.db()
    rows = conn.execute(
        "SELECT role, id, launch_host, launch_status FROM attempts "
        "WHERE launch_status IS NOT NULL AND primary_id IS NULL ORDER BY id"
    ).fetchall()
    out: dict[str, list[tuple[object, ...]]] = {}
    for r in rows:
        out.setdefault(str(r[0]), []).append((r[1], r[2], r[3]))
    return out


@pytest.mark.slow
def test_racing_ticks_on_three_hosts_launch_each_role_exactly_once(
    hosts_desk: Desk, tmp_path: Path
) -> None:
    for role in ("alpha", "beta", "gamma"):
        urgent(hosts_desk, role)
    # Six fresh deskd processes racing for the same launches (each ~0.4 CPU-s on
    # PostgreSQL, psycopg's import included): more only adds start-up cost on two cores.
    racing = [_tick(hosts_desk, host, "--wait") for host in HOSTS for _ in range(RACERS)]
    outs = _finish(racing)
    assert sum(1 for o in outs if not o["skipped"]) >= 1
    # A launch planned for a role bound to another host waits for that host's next tick.
    for host in HOSTS:
        _finish([_tick(hosts_desk, host, "--wait")])
    launched = _launches(hosts_desk)
    assert {role: len(rows) for role, rows in launched.items()} == {
        "alpha": 1,
        "beta": 1,
        "gamma": 1,
    }
    details = hosts_desk.db().execute("SELECT role, launch_detail FROM attempts").fetchall()
    assert launched["alpha"][0][1:] == ("host-a", "finished"), [tuple(d) for d in details]
    assert launched["beta"][0][1:] == ("host-b", "finished")
    assert launched["gamma"][0][2] == "finished"
    argv = (tmp_path / "argv.jsonl").read_text().splitlines()
    assert len(argv) == 3  # three agent processes in all, one per role
    started = [(d["role"], d["pid"]) for o in outs for d in o["launched"]]  # type: ignore[union-attr]
    assert sorted(r for r, _ in started) in (
        ["alpha", "beta", "gamma"],
        ["alpha", "gamma"],
        ["beta", "gamma"],
        ["gamma"],
        ["alpha"],
        ["beta"],
        ["alpha", "beta"],
    )
    hosts = {h["name"]: h for h in hosts_desk.json("status")["hosts"]}
    assert set(hosts) == set(HOSTS)


@pytest.mark.slow
def test_an_executor_killed_on_one_host_is_healed_by_another_hosts_tick(
    hosts_desk: Desk, tmp_path: Path
) -> None:
    hosts_desk.monkeypatch.setenv("FAKE_AGENT_MODE", "hang")
    urgent(hosts_desk, "gamma")
    (out,) = _finish([_tick(hosts_desk, "host-c")])
    (launch,) = out["launched"]  # type: ignore[misc]
    attempt_id, pid = int(launch["attempt_id"]), int(launch["pid"])
    conn = hosts_desk.db()
    for _ in range(2400):  # 2 min: only a real hang gets there
        status = conn.execute(
            "SELECT launch_status FROM attempts WHERE id = ?", (attempt_id,)
        ).fetchone()[0]
        if status == "running":
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"host-c's launch was still {status!r} after 2 min, not running")
    pid_file = hosts_desk.home / "run" / "agents" / f"{attempt_id}.pid"
    for _ in range(2400):  # 2 min: only a real hang gets there
        if pid_file.exists() and pid_file.read_text().strip():
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"no agent pid in {pid_file} 2 min after the launch was running")
    agent = int(pid_file.read_text())
    os.kill(pid, signal.SIGKILL)  # host-c's executor only; its agent must not outlive it
    for _ in range(2400):  # 2 min: only a real hang gets there
        if not (_alive(pid) or _alive(agent)):
            break
        time.sleep(0.05)
    assert not _alive(agent), (
        "the agent outlived its executor: a relaunch would be a second session"
    )
    hosts_desk.advance(minutes=1)
    hosts_desk.monkeypatch.setenv("FAKE_AGENT_MODE", "success")
    (healed,) = _finish([_tick(hosts_desk, "host-a", "--wait")])
    assert healed["died"] == [attempt_id]
    row = conn.execute(
        "SELECT launch_status, launch_detail FROM attempts WHERE id = ?", (attempt_id,)
    ).fetchone()
    assert tuple(row) == ("failed", "executor died")
    running = conn.execute(
        "SELECT COUNT(*) FROM attempts WHERE role = 'gamma' AND launch_status = 'running'"
    ).fetchone()[0]
    assert running == 0  # nothing left running twice: the dead launch is closed, not resumed
    live = conn.execute(
        "SELECT COUNT(*) FROM sessions WHERE role = 'gamma' AND state = 'working'"
    ).fetchone()[0]
    assert live <= 1


def test_a_role_bound_to_a_host_that_never_ticks_climbs_to_a_person(hosts_desk: Desk) -> None:
    hosts_desk.setenv("DESKD_HOST_NAME", "host-a")
    urgent(hosts_desk, "beta")
    first = hosts_desk.json("tick", "--execute", "--wait")
    assert first["launched"] == []  # beta's launch is handed to host-b, which is down
    (row,) = _launches(hosts_desk)["beta"]
    assert row[1:] == ("host-b", "planned")
    for _ in range(6):
        hosts_desk.advance(minutes=10)
        hosts_desk.json("tick", "--execute", "--wait")
    pages = hosts_desk.db().execute("SELECT role FROM pages WHERE role = 'beta'").fetchall()
    assert pages, "the wake never climbed to a person"
    given_up = _launches(hosts_desk)["beta"][0]
    assert given_up[1:] == ("host-b", "skipped")  # never run elsewhere: beta is host-b's
    detail = (
        hosts_desk.db()
        .execute("SELECT launch_detail FROM attempts WHERE id = ?", (given_up[0],))
        .fetchone()[0]
    )
    assert detail == "host host-b is not ticking"
    board = hosts_desk.json("status")
    (a,) = [h for h in board["hosts"] if h["name"] == "host-a"]
    assert a["stale"] is False


def test_a_launch_given_up_on_a_host_that_stopped_ticking_climbs_at_once(
    hosts_desk: Desk,
) -> None:
    # The give-up comes after DESKD_TICK_OVERDUE (2 minutes here); the spawn rung's SLA is 3:
    # it must not wait for it.
    hosts_desk.setenv("DESKD_HOST_NAME", "host-a")
    hosts_desk.setenv("DESKD_TICK_OVERDUE", "2m")
    urgent(hosts_desk, "beta")
    hosts_desk.json("tick", "--execute", "--wait")  # handed to host-b, which is down
    hosts_desk.advance(minutes=1)
    out = hosts_desk.json("tick", "--execute", "--wait")
    assert [n["text"] for n in out["notes"] if n["role"] == "beta"] == [
        "waiting: the launch is running"
    ]
    hosts_desk.advance(minutes=1, seconds=30)
    out = hosts_desk.json("tick", "--execute", "--wait")
    assert [(a["role"], a["rung"]) for a in out["attempts"]] == [("beta", "notify")]
    assert [n["text"] for n in out["notes"] if n["role"] == "beta"] == [
        "spawn: the launch was given up: host host-b is not ticking"
    ]
    (page,) = hosts_desk.json("pages")
    assert "host host-b is not ticking" in page["body"]
