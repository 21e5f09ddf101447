"""kill -9 at random moments: ticks, executors (and the agents they run) and enqueues are
killed mid-flight, round after round. Afterwards (a healing tick) nothing is lost, nothing is
stranded, nothing was launched twice, and the database is intact.

Bounded: a handful of rounds of real processes, a few seconds. Marked ``slow``; CI runs it.
It runs on both backends: on PostgreSQL a killed client's transaction is rolled back and its
session-level advisory locks freed by the server, which the healing tick relies on.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from conftest import DESK_TOML, Desk

FAKES = Path(__file__).resolve().parents[1] / "fakes"
ROUNDS = 4


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _desk_processes(home: Path) -> list[int]:
    """Every live process working for this desk (executors and agents carry DESKD_HOME),
    but not the session-hook relay a PostgreSQL desk's tick starts: it serves the desk's
    hooks and stays up between runs by design (the desk fixture stops it)."""
    needle = f"DESKD_HOME={home}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().split(") ", 1)[1][0]
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[1:4] == [b"-m", b"deskd", b"relay"]:
            continue
        if state != "Z" and needle in environ.split(b"\0"):
            found.append(int(entry))
    return found


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _wait_quiet(home: Path, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = _desk_processes(home)
        if not left:
            return []
        time.sleep(0.05)
    return _desk_processes(home)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"], indirect=True)
def test_kill_9_at_random_moments_loses_strands_and_duplicates_nothing(
    desk: Desk, tmp_path: Path
) -> None:
    rng = random.Random(int(os.environ.get("DESKD_KILL_SEED", "11")))
    # A killed agent is a transient failure, retried inside the rung: at once, not after the
    # default 2 s and 4 s waits, which the quiet wait below would otherwise sit through.
    desk.write_desk(DESK_TOML + '\n[agent]\nretry_wait = "0s"\n')
    argv_file = tmp_path / "argv.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(
        desk.extra,  # DESKD_DB on PostgreSQL
        DESKD_HOME=str(desk.home),
        DESKD_AGENT_CMD=str(FAKES / "fake-claude"),
        FAKE_ARGV_FILE=str(argv_file),
    )
    deskd = [sys.executable, "-m", "deskd"]
    now = desk.now
    accepted: dict[int, str] = {}
    try:
        for round_no in range(ROUNDS):
            env["DESKD_NOW"] = _iso(now)
            procs = []
            for role in ("alpha", "beta"):
                title = f"r{round_no}-{role}"
                cmd = [*deskd, "inbox", "enqueue", "--for", role, "--source", "alert"]
                cmd += ["--title", title, "--priority", "urgent", "--json"]
                procs.append(("enqueue", title, subprocess.Popen(cmd, env=env, **_PIPES)))
            tick = [*deskd, "tick", "--execute", "--json"]
            procs.append(("tick", "", subprocess.Popen(tick, env=env, **_PIPES)))
            time.sleep(rng.uniform(0.0, 0.6))
            for kind, _title, proc in procs:
                if rng.random() < (0.7 if kind == "tick" else 0.4):
                    proc.kill()
            for pid in _desk_processes(desk.home):  # executors and their agents
                if rng.random() < 0.5:
                    _kill(pid)
            for kind, title, proc in procs:
                out, _ = proc.communicate(timeout=120)
                if kind == "enqueue" and proc.returncode == 0:
                    accepted[int(json.loads(out)["id"])] = title
            now += timedelta(minutes=2)
        # Let what survived finish, then heal: a tick restarts or fails what was stranded.
        assert _wait_quiet(desk.home, 120) == []
        for _ in range(2):
            now += timedelta(minutes=2)
            env["DESKD_NOW"] = _iso(now)
            subprocess.run([*deskd, "tick", "--execute", "--wait"], env=env, check=True, **_PIPES)
        # Under load every executor may have been killed before its agent started, and the
        # killed roles climb past the launch rungs: one unkilled launch for gamma makes sure
        # the duplicate check below has agents to count.
        enqueue = [*deskd, "inbox", "enqueue", "--for", "gamma", "--source", "alert"]
        enqueue += ["--title", "after the storm", "--priority", "urgent"]
        subprocess.run(enqueue, env=env, check=True, **_PIPES)
        subprocess.run([*deskd, "tick", "--execute", "--wait"], env=env, check=True, **_PIPES)
        assert _wait_quiet(desk.home, 120) == []
    finally:
        for pid in _desk_processes(desk.home):
            _kill(pid)

    # Every agent start, per attempt (the executor names the settings file by attempt id).
    lines = argv_file.read_text().splitlines() if argv_file.exists() else []
    started = [json.loads(line) for line in lines if line.strip()]
    per_attempt: dict[int, int] = {}
    for argv in started:
        settings = Path(argv[argv.index("--settings") + 1]).name
        attempt_id = int(settings.split(".", 1)[0])
        per_attempt[attempt_id] = per_attempt.get(attempt_id, 0) + 1
    assert started, "no agent was launched: the loop did not exercise the executor"

    conn = desk.db()
    try:
        if desk.backend == "sqlite":
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        titles = {r[0]: r[1] for r in conn.execute("SELECT id, title FROM items").fetchall()}
        # 0 lost: every enqueue that said it succeeded is there, as it said.
        assert {i: titles.get(i) for i in accepted} == accepted
        assert len(accepted) >= 2  # the loop did exercise enqueues
        # 0 stranded: no launch is left planned or running with no executor alive.
        stranded = conn.execute(
            "SELECT id, launch_status FROM attempts WHERE launch_status IN ('planned', 'running')"
        ).fetchall()
        assert [tuple(r) for r in stranded] == []
        # One live attempt per demand key (the ledger's own rule).
        doubled = conn.execute(
            "SELECT key, COUNT(*) FROM attempts WHERE outcome = 'pending' GROUP BY key "
            "HAVING COUNT(*) > 1"
        ).fetchall()
        assert [tuple(r) for r in doubled] == []
        # 0 duplicate launches: an attempt's agent started no more often than the one
        # executor that claimed it recorded runs (it counts each run before starting it; a
        # run whose agent was killed is retried inside the rung, and counted again). A second
        # executor for the same attempt would start runs that no count records.
        runs = {
            int(r[0]): int(r[1])
            for r in conn.execute("SELECT id, launch_runs FROM attempts").fetchall()
        }
    finally:
        conn.close()
    over = {a: (n, runs.get(a, 0)) for a, n in per_attempt.items() if n > runs.get(a, 0)}
    assert over == {}, "agent starts beyond the runs the ledger recorded: (starts, runs)"


_PIPES: dict[str, object] = {"stdout": subprocess.PIPE, "stderr": subprocess.DEVNULL}
