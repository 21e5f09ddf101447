"""The cron driver and `deskd cron-line`: cron's bare environment still ticks the right desk
with this environment's deskd (lessons 32, 46, 47), and the log gets its line (lesson 48)."""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Desk
from deskd.schedule import service as scheduling

BARE_PATH = "/usr/bin:/bin"
REPO_DRIVER = Path(__file__).resolve().parents[2] / "scripts" / "cron" / "wake_orchestrator.sh"


def run_bare(command: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``command`` as cron runs it: ``sh -c`` with nothing in the environment but PATH."""
    assigned = [f"{k}={v}" for k, v in env.items()]
    return subprocess.run(
        ["/usr/bin/env", "-i", f"PATH={BARE_PATH}", *assigned, "/bin/sh", "-c", command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def fake_bin(tmp_path: Path) -> Path:
    """A folder with a fake `deskd` that reports what it was given, and exits 5."""
    folder = tmp_path / "fakebin"
    folder.mkdir()
    exe = folder / "deskd"
    exe.write_text(
        "#!/bin/sh\n"
        'echo "args=$*"\n'
        'echo "home=$HOME"\n'
        'echo "path=$PATH"\n'
        'echo "cwd=$(pwd)"\n'
        'echo "to-stderr" >&2\n'
        "exit 5\n"
    )
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder


def log_lines(path: Path) -> list[str]:
    return path.read_text("utf-8").splitlines() if path.exists() else []


# -- the rendered line, run the way cron runs it ---------------------------------------------


def test_the_rendered_line_ticks_the_desk_from_a_bare_environment(
    desk: Desk, tmp_path: Path
) -> None:
    line = desk.json("cron-line")["line"]
    fields = line.split(" ", 5)
    assert fields[:5] == ["*"] * 5
    elsewhere = tmp_path / "cron-starts-here"
    elsewhere.mkdir()

    done = run_bare(fields[5], cwd=elsewhere)

    assert done.returncode == 0, done.stderr
    lines = log_lines(desk.home / "logs" / "tick.log")
    summary = [x for x in lines if f"desk={desk.home / 'deskd.toml'}" in x]
    assert len(summary) == 1 and " dry-run " in summary[0]
    assert not (elsewhere / "logs").exists() and not (elsewhere / "data").exists()


def test_the_execute_line_ticks_in_execute_mode(desk: Desk, tmp_path: Path) -> None:
    command = desk.json("cron-line", "--execute")["command"]
    done = run_bare(command, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = [x for x in log_lines(desk.home / "logs" / "tick.log") if " desk=" in x]
    assert len(summary) == 1 and " execute " in summary[0]


# -- `deskd cron-line` -------------------------------------------------------------------------


def test_the_line_names_this_environments_deskd_and_the_packaged_driver(desk: Desk) -> None:
    out = desk.json("cron-line")
    bin_dir = Path(sys.executable).parent
    words = shlex.split(out["command"])
    assert words == [
        f"DESKD_HOME={desk.home}",
        f"DESKD_BIN={bin_dir}",
        str(scheduling.template_path(scheduling.DRIVER)),
    ]
    assert out["deskd"] == str(bin_dir / "deskd")
    assert out["execute"] is False
    assert out["log"] == str(desk.home / "logs" / "tick.log")
    assert all(Path(w.split("=", 1)[-1]).is_absolute() for w in words)


def test_execute_adds_deskd_wake_execute(desk: Desk) -> None:
    assert "DESKD_WAKE_EXECUTE=1" in shlex.split(desk.json("cron-line", "--execute")["command"])


def test_the_readable_form_is_comments_then_the_line(desk: Desk) -> None:
    out = desk.ok("cron-line").stdout.splitlines()
    assert all(x.startswith("#") for x in out[:-1])
    assert any("crontab -e" in x for x in out[:-1])
    assert any("dry run" in x for x in out[:-1])
    assert out[-1].startswith("* * * * * DESKD_HOME=")


def test_a_relative_desk_home_and_database_become_absolute(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(desk.home)
    out = desk.json("cron-line", DESKD_HOME=".", DESKD_DB="data/other.db")
    words = shlex.split(out["command"])
    assert f"DESKD_HOME={desk.home}" in words
    assert f"DESKD_DB={desk.home / 'data' / 'other.db'}" in words


def test_it_refuses_a_folder_without_a_desk(desk: Desk, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    out = desk.run("cron-line", "--json", DESKD_HOME=str(empty))
    assert out.exit_code == 1
    assert out.error()["code"] == "no_desk"
    assert "deskd init" in out.error()["message"]
    assert out.stdout == ""


def test_percent_signs_are_escaped_for_cron(tmp_path: Path) -> None:
    target = scheduling.Target(
        home=tmp_path / "50%desk", deskd=tmp_path / "bin" / "deskd", execute=False
    )
    command = scheduling.cron_line(target).command
    assert "50\\%desk" in command
    assert "%" not in command.replace("\\%", "")


def test_a_driver_without_its_executable_bit_runs_through_bash(tmp_path: Path) -> None:
    script = tmp_path / "wake_orchestrator.sh"
    shutil.copy(scheduling.template_path(scheduling.DRIVER), script)
    script.chmod(0o644)
    target = scheduling.Target(home=tmp_path, deskd=tmp_path / "bin" / "deskd", execute=False)
    words = shlex.split(scheduling.cron_line(target, script=script).command)
    assert Path(words[-2]).name == "bash" and Path(words[-2]).is_absolute()
    assert words[-1] == str(script)


# -- the driver script -------------------------------------------------------------------------


@pytest.mark.parametrize("driver", [REPO_DRIVER, scheduling.template_path(scheduling.DRIVER)])
def test_the_driver_sets_path_home_and_folder_and_returns_deskds_code(
    driver: Path, tmp_path: Path, fake_bin: Path
) -> None:
    home = tmp_path / "desk"
    home.mkdir()
    done = run_bare(str(driver), cwd=tmp_path, DESKD_HOME=str(home), DESKD_BIN=str(fake_bin))
    assert done.returncode == 5, done.stderr
    lines = log_lines(home / "logs" / "tick.log")
    assert "args=tick" in lines
    assert f"cwd={home}" in lines
    assert "to-stderr" in lines
    path = next(x for x in lines if x.startswith("path="))[len("path=") :].split(":")
    assert path[0] == str(fake_bin)
    assert {"/usr/local/bin", "/usr/bin", "/bin"} <= set(path)
    home_line = next(x for x in lines if x.startswith("home="))
    assert home_line != "home="


def test_the_driver_adds_execute_only_for_exactly_1(tmp_path: Path, fake_bin: Path) -> None:
    home = tmp_path / "desk"
    home.mkdir()
    for value in ("1", "yes", "0"):
        run_bare(
            str(REPO_DRIVER),
            cwd=tmp_path,
            DESKD_HOME=str(home),
            DESKD_BIN=str(fake_bin),
            DESKD_WAKE_EXECUTE=value,
        )
    args = [x for x in log_lines(home / "logs" / "tick.log") if x.startswith("args=")]
    assert args == ["args=tick --execute", "args=tick", "args=tick"]


def test_the_driver_writes_to_deskd_log_dir(tmp_path: Path, fake_bin: Path) -> None:
    home = tmp_path / "desk"
    home.mkdir()
    logs = tmp_path / "elsewhere" / "logs"
    run_bare(
        str(REPO_DRIVER),
        cwd=tmp_path,
        DESKD_HOME=str(home),
        DESKD_BIN=str(fake_bin),
        DESKD_LOG_DIR=str(logs),
    )
    assert "args=tick" in log_lines(logs / "tick.log")
    assert not (home / "logs").exists()


def test_the_packaged_driver_finds_deskd_in_its_virtualenv(tmp_path: Path, fake_bin: Path) -> None:
    venv = tmp_path / "venv"
    templates = venv / "lib" / "python3.11" / "site-packages" / "deskd" / "templates"
    templates.mkdir(parents=True)
    shutil.copy2(scheduling.template_path(scheduling.DRIVER), templates)
    shutil.copytree(fake_bin, venv / "bin")
    home = tmp_path / "desk"
    home.mkdir()
    done = run_bare(str(templates / scheduling.DRIVER), cwd=tmp_path, DESKD_HOME=str(home))
    assert done.returncode == 5, done.stderr
    path = next(x for x in log_lines(home / "logs" / "tick.log") if x.startswith("path="))
    assert path.startswith(f"path={venv / 'bin'}:")


def test_the_driver_refuses_without_deskd_home(tmp_path: Path, fake_bin: Path) -> None:
    done = run_bare(str(REPO_DRIVER), cwd=tmp_path, DESKD_BIN=str(fake_bin))
    assert done.returncode == 2
    assert "DESKD_HOME is not set" in done.stderr
    assert done.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == [fake_bin]


def test_the_driver_refuses_a_desk_home_that_is_not_a_folder(
    tmp_path: Path, fake_bin: Path
) -> None:
    done = run_bare(
        str(REPO_DRIVER), cwd=tmp_path, DESKD_HOME=str(tmp_path / "nope"), DESKD_BIN=str(fake_bin)
    )
    assert done.returncode == 2
    assert "not a folder" in done.stderr


def test_the_driver_refuses_a_bin_without_deskd(tmp_path: Path) -> None:
    home = tmp_path / "desk"
    home.mkdir()
    done = run_bare(str(REPO_DRIVER), cwd=tmp_path, DESKD_HOME=str(home), DESKD_BIN=str(tmp_path))
    assert done.returncode == 127
    assert "no deskd executable" in done.stderr


def test_the_repository_driver_finds_the_checkouts_virtualenv(tmp_path: Path) -> None:
    """From scripts/cron/ the driver finds .venv/bin/deskd of the checkout by itself."""
    if not (REPO_DRIVER.parents[2] / ".venv" / "bin" / "deskd").exists():
        pytest.skip("no .venv in this checkout")
    home = tmp_path / "desk"
    home.mkdir()
    (home / "deskd.toml").write_text('[desk]\nname = "t"\n')
    done = run_bare(str(REPO_DRIVER), cwd=tmp_path, DESKD_HOME=str(home))
    assert done.returncode == 0, done.stderr + log_lines(home / "logs" / "tick.log").__repr__()
    assert any(" desk=" in x for x in log_lines(home / "logs" / "tick.log"))


def test_the_tick_itself_still_runs_when_home_was_unset(desk: Desk, tmp_path: Path) -> None:
    command = desk.json("cron-line")["command"]
    done = run_bare(f"unset HOME; {command}", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert os.path.exists(desk.home / "logs" / "tick.log")
