"""A new user's first commands: `init` then `doctor` is not red (as real subprocesses, the
way a user first meets them), a dry tick shows on the board, `serve` (a real process) refuses
a port it cannot have before printing anything, a mistyped command gets a suggestion, and a
bad desk file or database says what to fix. Where the process is not what a test checks,
`deskd` runs through the console script's own entry in-process (tests/console_entry.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Outcome
from console_entry import console_with

BIN = Path(sys.executable).parent
NOW = "2026-12-01T14:00:00Z"


def _env(home: Path, **env: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    base.update({"DESKD_HOME": str(home), "DESKD_NOW": NOW, "PATH": str(BIN), **env})
    return base


def deskd_process(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The installed ``deskd`` console script (the fast dispatch, then click)."""
    return subprocess.run(
        [str(BIN / "deskd"), *args],
        env=_env(home, **env),
        cwd=home,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def deskd(home: Path, *args: str, **env: str) -> Outcome:
    """``deskd ARGS`` as the console script runs it, in this process (stdin not a terminal)."""
    return console_with(_env(home, **env), *args, cwd=home)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "desk"
    folder.mkdir()
    return folder


def test_init_then_doctor_is_not_red_without_an_agent_cli(home: Path) -> None:
    assert deskd_process(home, "init").returncode == 0
    out = deskd_process(home, "doctor")
    assert out.returncode == 0, out.stdout
    assert "✗" not in out.stdout and "failed" not in out.stdout
    agent = next(x for x in out.stdout.splitlines() if "agent researcher" in x)
    assert agent.startswith("!")
    assert "npm install -g @anthropic-ai/claude-code" in agent
    assert "workdir" not in out.stdout  # the example roles name no folder that is not there


def test_a_missing_agent_cli_fails_once_ticks_execute(home: Path) -> None:
    deskd(home, "init")
    out = deskd(home, "doctor", DESKD_WAKE_EXECUTE="1")
    assert out.exit_code == 1
    agent = next(x for x in out.stdout.splitlines() if "agent researcher" in x)
    assert agent.startswith("✗") and "npm install -g @anthropic-ai/claude-code" in agent


def test_a_missing_agent_cli_fails_once_an_executing_tick_has_run(home: Path) -> None:
    deskd(home, "init")
    assert deskd(home, "tick", "--execute").exit_code == 0
    out = deskd(home, "doctor")
    assert out.exit_code == 1
    assert next(x for x in out.stdout.splitlines() if "agent operator" in x).startswith("✗")


def test_status_after_a_dry_tick_says_when_it_ran_and_that_nothing_executed(home: Path) -> None:
    deskd(home, "init")
    assert deskd(home, "tick").exit_code == 0
    out = deskd(home, "status", DESKD_NOW="2026-12-01T14:02:00Z")
    assert out.exit_code == 0, out.stderr
    assert "last tick: 2m ago (dry-run)" in out.stdout
    assert "no executing tick has run yet" in out.stdout
    assert "no tick has run yet" not in out.stdout.replace("no executing tick has run yet", "")
    board = deskd(home, "status", "--json", DESKD_NOW="2026-12-01T14:02:00Z")
    import json

    health = json.loads(board.stdout)["health"]
    assert health["last_tick_mode"] == "dry-run" and health["last_execute_at"] is None


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


def test_serve_refuses_a_busy_port_before_printing_a_url_or_a_code(
    home: Path, busy_port: int
) -> None:
    deskd(home, "init")
    out = deskd_process(home, "serve", "--port", str(busy_port))
    assert out.returncode == 3
    assert out.stdout == ""
    assert f"127.0.0.1:{busy_port}" in out.stderr and "--port" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "Errno" not in out.stderr
    assert not (home / "data" / "supervisor-access.json").exists()  # no code was generated


def test_serve_on_bracketed_ipv6_loopback_refuses_a_busy_port_before_a_code(home: Path) -> None:
    try:
        taken = socket.socket(socket.AF_INET6)
        taken.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    with taken:
        taken.listen()
        port = taken.getsockname()[1]
        deskd(home, "init")
        out = deskd_process(home, "serve", "--host", "[::1]", "--port", str(port))
    assert out.returncode == 3, out.stdout + out.stderr
    assert out.stdout == ""  # no access code printed, none generated
    assert not (home / "data" / "supervisor-access.json").exists()
    assert f"[::1]:{port}" in out.stderr and "--port" in out.stderr


def test_serve_refuses_an_address_that_is_not_this_machines(home: Path) -> None:
    deskd(home, "init")
    out = deskd_process(home, "serve", "--host", "nosuch.invalid")
    assert out.returncode == 3 and out.stdout == ""
    assert "--host" in out.stderr


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("tickk", "tick"), ("statu", "status"), ("servee", "serve"), ("doctr", "doctor")],
)
def test_a_mistyped_command_gets_the_nearest_one(home: Path, typed: str, meant: str) -> None:
    out = deskd(home, typed)
    assert out.exit_code == 2
    assert f"No such command '{typed}'. Did you mean '{meant}'" in out.stderr


def test_a_mistyped_command_through_click_in_process_gets_a_suggestion() -> None:
    from click.testing import CliRunner

    from deskd.cli.main import cli

    result = CliRunner().invoke(cli, ["tickk"])
    assert result.exit_code == 2
    assert "Did you mean 'tick'?" in result.stderr


def test_a_mistyped_hot_subcommand_gets_the_nearest_one(home: Path) -> None:
    deskd(home, "init")
    out = deskd(home, "inbox", "enqeue", "--for", "researcher", "--title", "x")
    assert out.exit_code == 2
    assert "Did you mean 'enqueue'?" in out.stderr


def test_a_bad_role_name_shows_the_value_and_says_lowercase(home: Path) -> None:
    (home / "deskd.toml").write_text('[[roles]]\nname = "Alpha"\n', encoding="utf-8")
    out = deskd(home, "roles")
    assert out.exit_code == 1
    line = out.stderr.strip()
    assert line.startswith("deskd: deskd.toml: roles[0].name: 'Alpha'")
    assert "lowercase" in line and "did you mean 'alpha'?" in line


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("[desk]\nname = alpha\n", "`name = alpha`: text needs double quotes"),
        ("[desk]\ninbox_batch = 5m\n", "`inbox_batch = 5m`: one key = value per line"),
        ("[desk]\n[desk]\n", "use [[roles]]"),
        ('[[roles]]\nname = "a"\nname = "b"\n', "a key is set twice"),
    ],
)
def test_a_toml_syntax_error_gives_the_line_and_a_hint(home: Path, text: str, hint: str) -> None:
    (home / "deskd.toml").write_text(text, encoding="utf-8")
    out = deskd(home, "roles")
    assert out.exit_code == 1
    assert "not valid TOML" in out.stderr and hint in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_serve_takes_a_bracketed_ipv6_loopback_address(home: Path) -> None:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
            port = probe.getsockname()[1]
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    deskd(home, "init")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update({"DESKD_HOME": str(home), "DESKD_NOW": NOW, "PATH": str(BIN)})
    proc = subprocess.Popen(
        [str(BIN / "deskd"), "serve", "--host", "[::1]", "--port", str(port)],
        env=env,
        cwd=home,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines: list[str] = []
        # Read lines as they come (a select() on the pipe would miss a line already in the
        # reader's buffer); a watchdog ends a serve that never says it is listening.
        watchdog = threading.Timer(300, proc.kill)
        watchdog.start()
        try:
            for line in proc.stdout:  # type: ignore[union-attr]
                lines.append(line)
                if "deskd console on" in line:
                    break
        finally:
            watchdog.cancel()
        assert any(f"deskd console on http://[::1]:{port}/" in x for x in lines), lines
        assert _listens("::1", port, proc), proc.stderr.read() if proc.stderr else ""
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def _listens(host: str, port: int, proc: subprocess.Popen[str]) -> bool:
    """Poll until the server accepts a connection (or exits): the URL is printed just before
    uvicorn binds, so the first tries may be refused."""
    import time

    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with socket.create_connection((host, port), timeout=5):
                return True
        except ConnectionRefusedError:
            time.sleep(0.1)
    return False
