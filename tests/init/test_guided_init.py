"""A guided ``deskd init``: real processes on a pseudo-terminal answer its questions (bad
answers asked again with the reason), the flags give the same answers to scripts, stdin that
is no terminal asks nothing; every desk it writes passes ``deskd doctor``. The terminal is
what the guided tests check, so they run ``deskd`` as a process; the scripted runs and the
doctor checks go through the console script's entry in-process (tests/console_entry.py)."""

from __future__ import annotations

import json
import os
import pty
import select
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import NOW, Outcome
from console_entry import console_with
from deskd.config.desk_file import load_desk
from deskd.service.ops.init_answers import system_timezone

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pager"))
from pager_helpers import free_port, http_receiver

DESKD = str(Path(sys.executable).parent / "deskd")
WAIT_S = 120.0
"""The longest wait for a prompt: a bound for a stuck process, never a measure of speed."""


class Terminal:
    """``deskd`` on a pseudo-terminal: expect text, type lines, read the rest."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
            start_new_session=True,
        )  # fmt: skip
        os.close(slave)
        self.seen = ""
        self.at = 0

    def _read(self, deadline: float) -> bool:
        """Read what is there (waiting until ``deadline``); False at the end of output."""
        ready, _, _ = select.select([self.master], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 4096)
        except OSError:  # EIO: the child closed the terminal
            return False
        if not chunk:
            return False
        self.seen += chunk.decode(errors="replace").replace("\r\n", "\n")
        return True

    def expect(self, text: str) -> str:
        """Wait for ``text`` after what was already expected; the output up to it."""
        deadline = time.monotonic() + WAIT_S
        while text not in self.seen[self.at :]:
            if time.monotonic() > deadline or not self._read(deadline):
                raise AssertionError(f"never saw {text!r}; output:\n{self.seen}")
        end = self.seen.index(text, self.at) + len(text)
        said, self.at = self.seen[self.at : end], end
        return said

    def answer(self, prompt: str, line: str = "") -> str:
        said = self.expect(prompt)
        os.write(self.master, line.encode() + b"\r")
        return said

    def finish(self) -> int:
        """Read to the end; the exit code."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline and self._read(deadline):
            pass
        code = self.proc.wait(timeout=WAIT_S)
        os.close(self.master)
        return code


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "support"
    folder.mkdir()
    return folder


@pytest.fixture
def env(tmp_path: Path, home: Path) -> Iterator[dict[str, str]]:
    """No DESKD_* but the desk folder and the clock; codex and gemini (stand-ins) on PATH,
    claude and opencode not; the machine's zone is Europe/Berlin."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for kind in ("codex", "gemini"):
        exe = bin_dir / kind
        exe.write_text("#!/bin/sh\necho 1.0\n")
        exe.chmod(0o755)
    base = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    path = os.pathsep.join([str(bin_dir), str(Path(DESKD).parent), "/usr/bin", "/bin"])
    yield {**base, "DESKD_HOME": str(home), "DESKD_NOW": NOW, "PATH": path, "TZ": "Europe/Berlin"}


def doctor_failures(env: dict[str, str], home: Path) -> list[dict[str, str]]:
    done = console_with(env, "doctor", "--json", cwd=home)
    checks = json.loads(done.stdout)["checks"]
    return [c for c in checks if c["level"] == "fail"]


def run(env: dict[str, str], home: Path, *args: str) -> Outcome:
    """``deskd ARGS`` with stdin not a terminal."""
    return console_with(env, *args, cwd=home)


def test_it_asks_rechecks_bad_answers_and_writes_a_desk_doctor_passes(
    env: dict[str, str], home: Path, tmp_path: Path
) -> None:
    app = tmp_path / "app"
    app.mkdir()
    with http_receiver() as rx:
        term = Terminal([DESKD, "init"], env, home)
        term.answer("Desk name [support]:", "Support desk")
        term.answer("Time zone (IANA name) [Europe/Berlin]:", "Mars/Base")
        term.answer("unknown timezone 'Mars/Base'", "")
        assert "Agent CLIs on PATH: codex, gemini" in term.expect("Role 1 name [researcher]:")
        os.write(term.master, b"Bad Name\r")
        term.answer("'Bad Name' is not a role name", "triage")
        term.answer("title [Triage]:", "")
        term.answer("workdir", str(tmp_path / "nowhere"))
        term.answer("does not exist", str(app))
        term.answer("agent CLI (codex, gemini) [codex]:", "claude")
        term.answer("'claude' is not on PATH (on PATH: codex, gemini)", "")
        term.answer("Add another role? [y/N]:", "y")
        term.answer("Role 2 name:", "triage")
        term.answer("role 'triage' is already on this desk", "coder")
        term.answer("title [Coder]:", "Code writer")
        term.answer("workdir", "")
        term.answer("agent CLI (codex, gemini) [codex]:", "gemini")
        term.answer("Add another role? [y/N]:", "")
        term.answer("Channel URL", "not a url")
        term.answer("invalid channel URL 'not a url'", rx.url())
        term.expect("test page sent")
        term.expect("next: run `deskd doctor`")
        assert term.finish() == 0, term.seen
        assert len(rx.got) == 1 and "test page from desk Support desk" in rx.titles[0]
    desk = load_desk(home / "deskd.toml")
    assert desk.name == "Support desk"
    assert desk.section.timezone == "Europe/Berlin"
    assert desk.role_names == ["coder", "triage"]
    assert desk.roles["triage"].title == "Triage" and desk.roles["triage"].workdir == str(app)
    assert desk.roles["coder"].title == "Code writer" and desk.roles["coder"].workdir is None
    assert desk.agent_for("triage").command == "codex"
    assert desk.agent_for("coder").command == "gemini"
    assert desk.section.default_channels == ["ops"]
    # The webhook URL is a credential: it sits in .env (0600), the desk file names it.
    text = (home / "deskd.toml").read_text()
    assert rx.url() not in text and "${OPS_CHANNEL_URL}" in text
    env_file = home / ".env"
    assert env_file.read_text() == f"OPS_CHANNEL_URL='{rx.url()}'\n"
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    assert (home / "data" / "deskd.db").is_file()
    assert doctor_failures(env, home) == []


def test_enter_everywhere_takes_the_defaults_and_a_failed_channel_is_asked_again(
    env: dict[str, str], home: Path
) -> None:
    term = Terminal([DESKD, "init"], env, home)
    for prompt in ("Desk name", "Time zone", "Role 1 name", "title", "workdir", "agent CLI"):
        term.answer(prompt)
    term.answer("Add another role? [y/N]:")
    term.answer("Channel URL", f"json://127.0.0.1:{free_port()}/hook")
    term.answer("test page failed", "")
    term.answer("Keep this URL anyway? [y/N]:", "")
    term.answer("Channel URL", "")
    assert term.finish() == 0, term.seen
    desk = load_desk(home / "deskd.toml")
    assert (desk.name, desk.section.timezone, desk.role_names) == (
        "support",
        "Europe/Berlin",
        ["researcher"],
    )
    assert desk.agent_for("researcher").command == "codex"
    assert desk.data.channels == [] and not (home / ".env").exists()
    assert doctor_failures(env, home) == []


def test_an_existing_desk_is_refused_before_any_question(env: dict[str, str], home: Path) -> None:
    (home / "deskd.toml").write_text("# mine\n")
    term = Terminal([DESKD, "init"], env, home)
    assert term.finish() == 1
    assert "deskd.toml already exists" in term.seen and "Desk name" not in term.seen
    assert (home / "deskd.toml").read_text() == "# mine\n"


def test_stopping_midway_writes_nothing(env: dict[str, str], home: Path) -> None:
    term = Terminal([DESKD, "init"], env, home)
    term.answer("Desk name")
    term.expect("Time zone")
    os.write(term.master, b"\x04")  # Ctrl-D: the end of input
    assert term.finish() == 1
    assert list(home.iterdir()) == []


def test_json_on_a_terminal_asks_nothing(env: dict[str, str], home: Path) -> None:
    term = Terminal([DESKD, "init", "--json"], env, home)
    assert term.finish() == 0, term.seen
    assert "Desk name" not in term.seen
    assert load_desk(home / "deskd.toml").role_names == ["operator", "researcher"]


def test_flags_give_the_same_answers_without_questions(
    env: dict[str, str], home: Path, tmp_path: Path
) -> None:
    app = tmp_path / "app"
    app.mkdir()
    with http_receiver() as rx:
        term = Terminal(
            [DESKD, "init", "--role", f"triage:Triage lead:{app}", "--role", "coder",
             "--agent", "gemini", "--channel", rx.url(), "--timezone", "Asia/Tokyo"],
            env, home,
        )  # fmt: skip
        assert term.finish() == 0, term.seen
        assert len(rx.got) == 1
    assert "?" not in term.seen and "Desk name" not in term.seen
    desk = load_desk(home / "deskd.toml")
    assert (desk.name, desk.section.timezone) == ("support", "Asia/Tokyo")
    assert desk.role_names == ["coder", "triage"]
    assert desk.roles["triage"].title == "Triage lead" and desk.roles["triage"].workdir == str(app)
    assert desk.roles["coder"].title == "Coder"
    assert {desk.agent_for(r).command for r in desk.role_names} == {"gemini"}
    assert (home / ".env").read_text() == f"OPS_CHANNEL_URL='{rx.url()}'\n"
    assert doctor_failures(env, home) == []


def test_yes_asks_nothing_and_takes_the_defaults(env: dict[str, str], home: Path) -> None:
    done = run(env, home, "init", "--yes", "--json")
    assert done.exit_code == 0, done.stderr
    desk = load_desk(home / "deskd.toml")
    assert (desk.section.timezone, desk.role_names) == ("Europe/Berlin", ["researcher"])
    assert desk.agent_for("researcher").command == "codex"  # the first agent CLI on PATH
    assert doctor_failures(env, home) == []


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--role", "Bad Name"], "'Bad Name' is not a role name"),
        (["--role", "supervisor"], "'supervisor' is reserved"),
        (["--role", "a", "--role", "a"], "role 'a' is already on this desk"),
        (["--role", "a:A:/no/such/folder"], "workdir /no/such/folder does not exist"),
        (["--agent", "vim"], "unknown agent 'vim' (agents: claude, codex, gemini, opencode)"),
        (["--timezone", "Mars/Base"], "unknown timezone 'Mars/Base'"),
        (["--channel", "nope"], "invalid channel URL 'nope'"),
        (["--channel", "json://127.0.0.1:{port}/x"], "the test page on --channel failed"),
        (["--new-db", "--yes"], "--new-db creates only the lost database"),
    ],
)
def test_a_bad_flag_is_one_line_and_writes_nothing(
    env: dict[str, str], home: Path, args: list[str], said: str
) -> None:
    args = [a.replace("{port}", str(free_port())) for a in args]
    done = run(env, home, "init", *args)
    assert done.exit_code == 1, done.stderr
    assert done.stderr.startswith("deskd: ") and said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert list(home.iterdir()) == []


def test_stdin_not_a_terminal_asks_nothing_and_writes_the_example_desk(
    env: dict[str, str], home: Path
) -> None:
    done = run(env, home, "init")
    assert done.exit_code == 0, done.stderr
    assert "Desk name" not in done.stdout
    assert "next: edit deskd.toml" in done.stdout
    desk = load_desk(home / "deskd.toml")
    assert (desk.name, desk.section.timezone) == ("support", "UTC")
    assert desk.role_names == ["operator", "researcher"]
    assert desk.agent_for("researcher").command == "claude"
    assert doctor_failures(env, home) == []


def test_the_system_zone_comes_from_tz_then_etc_timezone_then_the_localtime_link(
    tmp_path: Path,
) -> None:
    etc = tmp_path / "etc"
    etc.mkdir()
    assert system_timezone({}, etc=etc) == "UTC"
    (etc / "localtime").symlink_to("/usr/share/zoneinfo/America/Chicago")
    assert system_timezone({}, etc=etc) == "America/Chicago"
    (etc / "timezone").write_text("Europe/Paris\n")
    assert system_timezone({}, etc=etc) == "Europe/Paris"
    assert system_timezone({"TZ": ":Asia/Tokyo"}, etc=etc) == "Asia/Tokyo"
    assert system_timezone({"TZ": "Nowhere/Special"}, etc=etc) == "Europe/Paris"
