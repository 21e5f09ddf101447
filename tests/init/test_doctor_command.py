"""`deskd doctor`: says which desk it used, keeps going past failures, exits 1 only on failure."""

from __future__ import annotations

import sqlite3
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import Desk


@pytest.fixture
def agent_bin(tmp_path: Path) -> Path:
    """A folder holding a fake `claude` executable, to use as PATH."""
    folder = tmp_path / "bin"
    folder.mkdir()
    exe = folder / "claude"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return folder


def checks(out: Any) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in out.json()["checks"]}


def test_it_passes_on_a_working_desk_and_names_what_it_used(desk: Desk, agent_bin: Path) -> None:
    desk.ok("roles")  # creates the database
    out = desk.run("doctor", "--json", PATH=str(agent_bin))
    assert out.exit_code == 0, out.stdout
    found = checks(out)
    assert found["desk folder"]["detail"].startswith(str(desk.home))
    assert str(desk.home / "deskd.toml") in found["desk file"]["detail"]
    assert str(desk.db_path) in found["database"]["detail"]
    assert found["schema"]["ok"] and found["wal mode"]["ok"]
    assert found["deskd"]["detail"].endswith(f"python {sys.executable}")
    assert found["session hook"]["detail"] == str(
        Path(sys.executable).parent / "deskd-session-hook"
    )
    for role in ("alpha", "beta", "gamma"):
        assert found[f"agent {role}"]["detail"].endswith(str(agent_bin / "claude"))
    assert all(c["ok"] for c in found.values())


def test_a_missing_agent_fails_with_the_path_searched_and_the_fix(
    desk: Desk, tmp_path: Path
) -> None:
    empty_path = tmp_path / "nothing-here"
    empty_path.mkdir()
    # Ticks execute: the roles are due to launch (until then a missing CLI is a warning).
    out = desk.run("doctor", PATH=str(empty_path), DESKD_WAKE_EXECUTE="1")
    assert out.exit_code == 1
    line = next(x for x in out.stdout.splitlines() if "agent alpha" in x)
    assert line.startswith("✗")
    assert str(empty_path) in line
    assert "DESKD_AGENT_CMD" in line
    assert "Traceback" not in out.stdout + out.stderr


def test_deskd_agent_cmd_is_the_executable_checked(desk: Desk, agent_bin: Path) -> None:
    out = desk.run(
        "doctor", "--json", PATH="/nonexistent", DESKD_AGENT_CMD=str(agent_bin / "claude")
    )
    assert checks(out)["agent beta"]["ok"]


def test_an_invalid_desk_file_fails_and_the_other_checks_still_run(
    desk: Desk, agent_bin: Path
) -> None:
    desk.ok("roles")
    desk.write_desk('[[roles]]\nname = "Alpha"\n')
    out = desk.run("doctor", "--json", PATH=str(agent_bin))
    assert out.exit_code == 1
    found = checks(out)
    assert found["desk file"]["ok"] is False
    assert found["desk file"]["detail"].startswith(
        "deskd.toml: roles[0].name: 'Alpha' is not a role name: lowercase letters"
    )
    assert found["database"]["ok"] and found["log dir"]["ok"]


def test_a_missing_desk_file_is_reported_not_raised(desk: Desk) -> None:
    (desk.home / "deskd.toml").unlink()
    out = desk.run("doctor")
    assert out.exit_code == 1
    assert "✗ desk file" in out.stdout
    assert "deskd init" in out.stdout


def test_warnings_do_not_fail_and_doctor_creates_nothing(desk: Desk, agent_bin: Path) -> None:
    out = desk.run("doctor", "--json", PATH=str(agent_bin))
    assert out.exit_code == 0
    found = checks(out)
    assert found["database"]["level"] == "warn"
    assert found["log dir"]["level"] == "warn"
    assert not desk.db_path.exists()
    assert not (desk.home / "logs").exists()


def test_a_database_not_in_wal_mode_fails(desk: Desk, agent_bin: Path) -> None:
    desk.db_path.parent.mkdir()
    conn = sqlite3.connect(desk.db_path)
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    out = desk.run("doctor", "--json", PATH=str(agent_bin))
    assert out.exit_code == 1
    assert checks(out)["wal mode"]["ok"] is False


def test_a_database_from_a_newer_deskd_fails(desk: Desk, agent_bin: Path) -> None:
    desk.ok("roles")
    conn = sqlite3.connect(desk.db_path)
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    out = desk.run("doctor", "--json", PATH=str(agent_bin))
    assert out.exit_code == 1
    assert "newer than this deskd" in checks(out)["schema"]["detail"]


def test_a_disabled_role_needs_no_agent(desk: Desk, agent_bin: Path) -> None:
    desk.write_desk('[[roles]]\nname = "alpha"\n\n[[roles]]\nname = "beta"\nenabled = false\n')
    found = checks(desk.run("doctor", "--json", PATH=str(agent_bin)))
    assert "agent alpha" in found
    assert "agent beta" not in found


def test_an_invalid_setting_is_named_and_paths_still_resolve(desk: Desk) -> None:
    out = desk.run("doctor", "--json", DESKD_PORT="eighty")
    assert out.exit_code == 1
    found = checks(out)
    assert found["settings"]["detail"].startswith("DESKD_PORT: ")
    assert str(desk.home / "deskd.toml") in found["desk file"]["detail"]


def test_a_missing_workdir_fails_naming_the_role_and_the_fix(desk: Desk, agent_bin: Path) -> None:
    (desk.home / "src").mkdir()
    text = (desk.home / "deskd.toml").read_text()
    text = text.replace('title = "Alpha"\n', 'title = "Alpha"\nworkdir = "src"\n')
    text = text.replace('title = "Beta"\n', 'title = "Beta"\nworkdir = "~/no/such/folder"\n')
    desk.write_desk(text)
    desk.ok("roles")
    out = desk.run("doctor", "--json", PATH=str(agent_bin))
    assert out.exit_code == 1
    found = checks(out)
    assert found["workdir alpha"] == {
        "name": "workdir alpha", "ok": True, "level": "ok", "detail": str(desk.home / "src")
    }  # fmt: skip
    beta = found["workdir beta"]
    assert beta["level"] == "fail"
    assert beta["detail"].startswith(str(Path("~/no/such/folder").expanduser()) + " does not exist")
    assert 'fix workdir under [[roles]] name = "beta"' in beta["detail"]
    assert "workdir gamma" not in found  # no workdir: the desk folder


@pytest.fixture
def full_disk(tmp_path: Path) -> Any:
    """A folder on a 1 MiB tmpfs filled to the last block (needs root to mount)."""
    import subprocess

    folder = tmp_path / "full"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.decode().strip()}")
    try:
        try:
            with (folder / "filler").open("wb") as f:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
        except OSError:
            pass
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_doctor_fails_on_a_full_disk(desk: Desk, agent_bin: Path, full_disk: Path) -> None:
    desk.ok("roles")
    out = desk.run("doctor", "--json", PATH=str(agent_bin), DESKD_LOG_DIR=str(full_disk))
    assert out.exit_code == 1, out.stdout
    log_dir = checks(out)["log dir"]
    assert not log_dir["ok"] and "the disk is full" in log_dir["detail"]
