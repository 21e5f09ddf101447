"""`deskd cron-line --check` and `deskd timer status`: is the schedule installed, does it tick
this desk and database, and when did it last run with which exit code (from the cron
driver's lines in tick.log, or from systemd)."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

from conftest import Desk
from deskd.schedule import service as scheduling

DRIVER = scheduling.template_path(scheduling.DRIVER)


def fake(folder: Path, name: str, script: str) -> None:
    folder.mkdir(exist_ok=True)
    exe = folder / name
    exe.write_text("#!/bin/sh\n" + script)
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)


def with_crontab(desk: Desk, tmp_path: Path, text: str) -> str:
    """A PATH whose `crontab -l` prints ``text``."""
    (tmp_path / "crontab.txt").write_text(text)
    fake(tmp_path / "bin", "crontab", f'cat "{tmp_path / "crontab.txt"}"\n')
    return f"{tmp_path / 'bin'}:/usr/bin:/bin"


def run_line(line: str, cwd: Path) -> int:
    """The crontab line's command, run by sh the way cron runs it."""
    command = line.split(" ", 5)[5]
    done = subprocess.run(
        ["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "/bin/sh", "-c", command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode


def test_cron_line_check_reads_the_last_run_and_exit_code_from_tick_log(
    desk: Desk, tmp_path: Path
) -> None:
    line = desk.json("cron-line", "--execute")["line"]
    path = with_crontab(desk, tmp_path, f"# deskd\n{line}\n")
    assert run_line(line, tmp_path) == 0  # a real tick, through the real driver
    out = desk.run("cron-line", "--check", "--json", PATH=path)
    assert out.exit_code == 0, out.stderr
    (found,) = out.json()["schedules"]
    assert found["kind"] == "cron" and found["this_desk"] and found["this_database"]
    assert found["execute"] is True and found["exit_code"] == 0 and found["last_run"]

    (desk.home / "deskd.toml").write_text("[desk\nbroken")  # every tick now refuses
    assert run_line(line, tmp_path) != 0
    out = desk.run("cron-line", "--check", PATH=path)
    assert out.exit_code == 1
    assert "exit 1" in out.stdout and "execute" in out.stdout


def test_cron_line_check_names_a_line_for_another_desk_or_database(
    desk: Desk, tmp_path: Path
) -> None:
    line = desk.json("cron-line")["line"]
    other = line.replace(f"DESKD_HOME={desk.home}", f"DESKD_HOME={tmp_path / 'elsewhere'}")
    out = desk.run("cron-line", "--check", PATH=with_crontab(desk, tmp_path, other + "\n"))
    assert out.exit_code == 1
    assert f"none of these ticks this desk ({desk.home})" in out.stdout
    elsewhere_db = line.replace("DESKD_BIN=", f"DESKD_DB={tmp_path / 'other.db'} DESKD_BIN=")
    out = desk.run("cron-line", "--check", PATH=with_crontab(desk, tmp_path, elsewhere_db + "\n"))
    assert out.exit_code == 1
    assert "not the database this shell uses" in out.stdout
    none = desk.run("cron-line", "--check", PATH=with_crontab(desk, tmp_path, ""))
    assert none.exit_code == 1
    assert "no crontab line runs the deskd driver (`deskd cron-line`)" in none.stdout


SHOW = {
    "deskd-tick.service": (
        "ExecMainStartTimestamp=Tue 2026-12-01 13:59:00 UTC\n"
        "ExecMainExitTimestamp=Tue 2026-12-01 13:59:01 UTC\nExecMainStatus={status}\n"
        "Result=success\n"
    ),
    "deskd-tick.timer": (
        "ActiveState=active\nUnitFileState=enabled\n"
        "NextElapseUSecRealtime=Tue 2026-12-01 14:01:00 UTC\n"
    ),
}


SHOW_TIMER = SHOW["deskd-tick.timer"]


def with_systemctl(tmp_path: Path, status: int) -> str:
    """A PATH whose `systemctl show UNIT` answers as systemd would (and records its argv)."""
    script = f'echo "$*" >> "{tmp_path / "systemctl.argv"}"\ncase "$*" in\n'
    for unit, text in SHOW.items():
        script += f"  *{unit}*) printf '%s' '{text.format(status=status)}' ;;\n"
    script += "esac\n"
    fake(tmp_path / "bin", "systemctl", script)
    return f"{tmp_path / 'bin'}:/usr/bin:/bin"


def test_timer_status_shows_the_desk_mode_state_and_last_exit(desk: Desk, tmp_path: Path) -> None:
    config = tmp_path / "config"
    desk.ok("timer", "install", "--user", "--execute", XDG_CONFIG_HOME=str(config))
    path = with_systemctl(tmp_path, status=0)
    out = desk.run("timer", "status", "--json", XDG_CONFIG_HOME=str(config), PATH=path)
    assert out.exit_code == 0, out.stdout + out.stderr
    (found,) = out.json()["schedules"]
    assert found["where"] == str(config / "systemd" / "user" / "deskd-tick.timer")
    assert found["this_desk"] and found["this_database"] and found["execute"]
    assert found["last_run"] == "Tue 2026-12-01 13:59:00 UTC" and found["exit_code"] == 0
    assert found["state"] == "active (enabled), next Tue 2026-12-01 14:01:00 UTC"
    argv = (tmp_path / "systemctl.argv").read_text().splitlines()
    assert all(a.startswith("--user show ") for a in argv)  # it only reads

    failing = with_systemctl(tmp_path, status=3)
    out = desk.run("timer", "status", XDG_CONFIG_HOME=str(config), PATH=failing)
    assert out.exit_code == 1
    assert "last run  Tue 2026-12-01 13:59:00 UTC, exit 3" in out.stdout


def test_timer_status_without_a_timer_says_how_to_install_one(desk: Desk, tmp_path: Path) -> None:
    out = desk.run("timer", "status", XDG_CONFIG_HOME=str(tmp_path / "none"))
    assert out.exit_code == 1
    assert "no deskd-tick timer installed (`deskd timer install --user`)" in out.stdout


def test_a_timer_written_but_not_running_is_unhealthy_and_doctor_warns(
    desk: Desk, tmp_path: Path
) -> None:
    config = tmp_path / "config"
    desk.ok("timer", "install", "--user", "--execute", XDG_CONFIG_HOME=str(config))
    SHOW["deskd-tick.timer"] = "ActiveState=inactive\nUnitFileState=disabled\n"
    try:
        never_enabled = with_systemctl(tmp_path, status=0)
    finally:
        SHOW["deskd-tick.timer"] = SHOW_TIMER
    fake(tmp_path / "gone", "systemctl", "exit 1\n")
    unreachable = f"{tmp_path / 'gone'}:/usr/bin:/bin"
    for path, said in ((never_enabled, "inactive (disabled)"), (unreachable, "not reachable")):
        out = desk.run("timer", "status", XDG_CONFIG_HOME=str(config), PATH=path)
        assert out.exit_code == 1 and said in out.stdout, out.stdout
        doctor = desk.run("doctor", "--json", XDG_CONFIG_HOME=str(config), PATH=path)
        (check,) = [c for c in doctor.json()["checks"] if c["name"] == "tick schedule"]
        assert check["level"] == "warn" and said in check["detail"], check
