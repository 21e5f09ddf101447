"""The session hook through the host's relay (``deskd relay``) on a real PostgreSQL server:
the same rows and output as the hook working alone, no psycopg in the hook, a relay that dies
mid-request leaves the call to the hook (recorded once), and what the relay refuses."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import deskd
from conftest import DESK_TOML, Desk
from deskd.relay.server import answering, relay_pid, stop
from deskd.store.db import transaction

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hook"))
from hook_helpers import HookDesk, HookRun, fixture

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

BOUND_S = 120.0
"""A bound for waits on another process (a real hang only), never a timing assertion."""


def start_relay(desk: Desk, *args: str, **extra: str) -> subprocess.Popen[bytes]:
    """``deskd relay`` for ``desk`` (``extra`` added to its environment), once its socket
    answers."""
    env = HookDesk(desk).env(role=None, **extra)
    env.pop("DESKD_NOW")
    proc = subprocess.Popen(
        [sys.executable, "-m", "deskd", "relay", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + BOUND_S
    while not answering(str(desk.home / "run")):
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "the relay never answered"
        time.sleep(0.05)
    return proc


def ended(proc: subprocess.Popen[bytes], run: Path) -> None:
    stop(str(run))
    try:
        proc.wait(timeout=BOUND_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture
def relay(desk: Desk) -> Iterator[subprocess.Popen[bytes]]:
    proc = start_relay(desk)
    yield proc
    ended(proc, desk.home / "run")


@pytest.fixture
def no_psycopg(tmp_path: Path) -> dict[str, str]:
    """An environment in which ``import psycopg`` fails: a hook that works alone logs it."""
    folder = tmp_path / "no_psycopg"
    folder.mkdir()
    (folder / "psycopg.py").write_text("raise ImportError('psycopg is hidden here')\n")
    return {"PYTHONPATH": str(folder)}


def twin(desk: Desk, pg_server: str, pg_template: str, tmp_path: Path) -> Iterator[Desk]:
    """A second desk like ``desk`` (same desk file, a copy of the same migrated database)."""
    from pg_databases import database, with_dbname

    home = tmp_path / "twin"
    home.mkdir()
    (home / "deskd.toml").write_text(DESK_TOML, encoding="utf-8")
    with database(pg_server, prefix="deskd_t", template=pg_template) as name:
        other = Desk(home, desk.monkeypatch, url=with_dbname(pg_server, name))
        other.setenv("DESKD_DB", other.url or "")
        try:
            yield other
        finally:
            other.close()


def scenario(hd: HookDesk, **extra: str) -> list[tuple[int, str, str]]:
    """Items, then the hook's calls of a session's life over two roles, and what each printed."""
    for n, priority in enumerate(("urgent", "normal", "high")):
        hd.enqueue("alpha", f"disk {90 + n}%", priority=priority, body=f"host-{n}\nfull")
    hd.enqueue("beta", "review #12")
    calls = [
        (fixture("session_start"), "alpha"),
        (fixture("post_tool_use"), "alpha"),
        (fixture("post_tool_use"), "alpha"),  # nothing new: silent
        (fixture("user_prompt_submit"), "beta"),
        (fixture("subagent_post_tool_use"), "beta"),
        (fixture("stop"), "alpha"),
        (fixture("stop_failure_rate_limit"), "beta"),
        (fixture("post_tool_use"), "zeta"),  # unknown role: logged, nothing written
    ]
    outs = []
    for payload, role in calls:
        run: HookRun = hd.hook(payload, role=role, **extra)
        outs.append((run.code, run.stdout, run.stderr))
        hd.desk.advance(seconds=7)
    return outs


def log_lines(hd: HookDesk) -> list[str]:
    """The hook log's messages, without the time and pid of each line."""
    return [line.split(" ", 2)[2] for line in hd.log_text().splitlines()]


def test_the_hook_through_the_relay_writes_and_prints_what_it_does_alone(
    desk: Desk,
    relay: subprocess.Popen[bytes],
    pg_server: str,
    pg_template: str,
    tmp_path: Path,
    no_psycopg: dict[str, str],
) -> None:
    relayed = HookDesk(desk)
    # Without psycopg the hook can only have worked through the relay.
    through = scenario(relayed, **no_psycopg)
    for other in twin(desk, pg_server, pg_template, tmp_path):
        alone = HookDesk(other)
        assert scenario(alone) == through
        assert relayed.desk.dump() == alone.desk.dump()
        assert log_lines(relayed) == log_lines(alone)
    assert any('"additionalContext"' in out for _, out, _ in through)
    assert "unknown role 'zeta'" in relayed.log_text()
    assert relay.poll() is None


def test_without_a_relay_the_hook_works_alone(desk: Desk) -> None:
    hd = HookDesk(desk)
    hd.enqueue("alpha", "disk 91%")
    assert not answering(str(desk.home / "run"))
    assert "disk 91%" in hd.hook(fixture("post_tool_use")).context()
    assert hd.log_text() == ""


def waiting_for_the_write_lock(desk: Desk) -> bool:
    conn = desk.db()
    try:
        rows = conn.raw_execute(  # type: ignore[attr-defined]
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        ).fetchall()
    finally:
        conn.close()
    return int(rows[0][0]) > 0


@contextmanager
def hook_behind_the_write_lock(
    desk: Desk, hd: HookDesk, tmp_path: Path
) -> Iterator[tuple[subprocess.Popen[bytes], Any]]:
    """A PostToolUse session hook started while this test holds deskd's write lock, yielded
    (with the holding connection) once the relay it called is waiting for that lock."""
    stdin = tmp_path / "payload.json"
    stdin.write_text(json.dumps(fixture("post_tool_use")), encoding="utf-8")
    holder = desk.db()
    with transaction(holder):
        hook = subprocess.Popen(
            [str(Path(sys.executable).parent / "deskd-session-hook")],
            env=hd.env(),
            stdin=stdin.open("rb"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + BOUND_S
        while not waiting_for_the_write_lock(desk):
            assert time.monotonic() < deadline, "the relay never asked for the write lock"
            time.sleep(0.02)
        yield hook, holder


def test_a_relay_killed_mid_request_leaves_the_call_to_the_hook_recorded_once(
    desk: Desk, relay: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    hd = HookDesk(desk)
    hd.enqueue("alpha", "disk 91%", priority="urgent")
    # the relay's request waits behind deskd's write lock
    with hook_behind_the_write_lock(desk, hd, tmp_path) as (hook, _):
        relay.send_signal(signal.SIGKILL)
        relay.wait()
    out, err = hook.communicate(timeout=BOUND_S)
    assert (hook.returncode, err) == (0, b"")
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "disk 91%" in context  # the hook did the work itself
    (session,) = hd.sessions()
    assert session["heartbeats"] == 1  # once, not twice
    assert hd.shown_ids() == [1]
    assert hd.log_text() == ""


def test_the_relay_socket_is_the_desk_users_alone_and_one_relay_serves_a_desk(
    desk: Desk, relay: subprocess.Popen[bytes]
) -> None:
    run = desk.home / "run"
    assert stat.S_IMODE(os.stat(run / "relay.sock").st_mode) == 0o600
    assert relay_pid(str(run)) == relay.pid
    second = subprocess.run(
        [sys.executable, "-m", "deskd", "relay"],
        env=HookDesk(desk).env(role=None),
        capture_output=True,
        timeout=BOUND_S,
        check=False,
    )
    assert second.returncode == 0  # another serves: it exits at once
    assert relay_pid(str(run)) == relay.pid and relay.poll() is None


def test_a_request_for_another_database_is_refused_and_the_hook_works_alone(
    desk: Desk, relay: subprocess.Popen[bytes], no_psycopg: dict[str, str]
) -> None:
    hd = HookDesk(desk)
    hd.enqueue("alpha", "disk 91%")
    other = desk.url.replace("?", "?application_name=other&") if desk.url else ""
    # Refused by the relay; alone, without psycopg, the hook can only log why it failed.
    run = hd.hook(fixture("post_tool_use"), DESKD_DB=other, **no_psycopg)
    assert (run.code, run.stdout) == (0, "")
    assert "psycopg is hidden here" in hd.log_text()
    assert hd.sessions() == []


def send(desk: Desk, request: dict[str, Any]) -> list[dict[str, Any]]:
    """One raw request over the socket, as any process of the desk's user could send it."""
    import socket

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(BOUND_S)
    sock.connect(str(desk.home / "run" / "relay.sock"))
    reader = sock.makefile("rb")
    sock.sendall(json.dumps(request).encode() + b"\n")
    answers = []
    for line in reader:
        answers.append(json.loads(line))
    sock.close()
    return answers


def hook_request(desk: Desk, role: str, payload: Any) -> dict[str, Any]:
    """A PostToolUse call as the hook forwards it to the relay (``hook.relayed``)."""
    return {
        "role": role,
        "event": "PostToolUse",
        "now": desk.now_ms,
        "db": desk.url,
        "desk": str(desk.home / "deskd.toml"),
        "token": None,
        "session": None,
        "payload": payload,
        "version": deskd.__version__,
    }


def test_a_forwarded_request_passes_the_hooks_own_checks(
    desk: Desk, relay: subprocess.Popen[bytes]
) -> None:
    hd = HookDesk(desk)
    hd.enqueue("beta", "sets the database up")
    payload = fixture("post_tool_use")
    flag = dict(payload, session_id="--dangerously-skip-permissions")
    assert "refused" in send(desk, hook_request(desk, "alpha", flag))[0]["skip"]
    assert "unknown role" in send(desk, hook_request(desk, "zeta", payload))[0]["skip"]
    assert "refused" in send(desk, hook_request(desk, "alpha", {"x": 1}))[0]
    assert hd.sessions() == [] and hd.sessions("zeta") == []
    answers = send(desk, hook_request(desk, "alpha", payload))
    assert answers[-1] == {"done": True, "notes": []}
    assert len(hd.sessions()) == 1


def test_the_tick_starts_one_relay_without_the_supervisors_secrets(desk: Desk) -> None:
    from deskd.relay.start import ensure_relay
    from deskd.service.desk.context import open_context

    desk.monkeypatch.setenv("DESKD_HOOK_RELAY", "auto")
    desk.monkeypatch.setenv("DESKD_SUPERVISOR_ACCESS_CODE", "correct-horse-battery-staple")
    desk.monkeypatch.setenv("DESKD_NOTIFY_URLS", "json://hooks.example/page")
    desk.monkeypatch.setenv("DESKD_ROLE", "alpha")
    ctx = open_context()
    try:
        pid = ensure_relay(ctx)
        assert pid is not None
        run = desk.home / "run"
        deadline = time.monotonic() + BOUND_S  # the tick does not wait for it to answer
        while not answering(str(run)):
            assert time.monotonic() < deadline, (desk.home / "logs" / "relay.log").read_text()
            time.sleep(0.05)
        assert ensure_relay(ctx) is None  # one answers: none started
        assert relay_pid(str(run)) == pid
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        names = {e.split(b"=", 1)[0].decode() for e in environ if e}
        assert not names & {"DESKD_SUPERVISOR_ACCESS_CODE", "DESKD_NOTIFY_URLS", "DESKD_ROLE"}
        assert f"DESKD_DB={desk.url}".encode() in environ
    finally:
        ctx.close()
    assert stop(str(run)) == pid
    assert not answering(str(run)) and not (run / "relay.sock").exists()


def test_with_the_relay_off_the_tick_starts_none(desk: Desk) -> None:
    from deskd.relay.start import ensure_relay
    from deskd.service.desk.context import open_context

    desk.monkeypatch.setenv("DESKD_HOOK_RELAY", "off")
    ctx = open_context()
    try:
        assert ensure_relay(ctx) is None
        assert not answering(str(desk.home / "run"))
    finally:
        ctx.close()


def test_a_bad_relay_setting_is_refused_naming_the_choices(desk: Desk) -> None:
    out = desk.run("status", DESKD_HOOK_RELAY="sometimes")
    assert out.exit_code != 0
    assert "DESKD_HOOK_RELAY" in out.stderr and "auto" in out.stderr and "off" in out.stderr
