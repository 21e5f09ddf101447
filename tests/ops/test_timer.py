"""`deskd timer install/print`: systemd units with absolute paths to this environment's deskd
and the desk, written only where asked, and never a systemctl call of deskd's own."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from conftest import Desk
from deskd.schedule import service as scheduling
from deskd.schedule import status

DESKD = Path(sys.executable).parent / "deskd"


@pytest.fixture
def config_home(tmp_path: Path) -> Path:
    folder = tmp_path / "config"
    folder.mkdir()
    return folder


@pytest.fixture
def spy_path(tmp_path: Path) -> tuple[str, Path]:
    """A PATH whose `systemctl` and `crontab` only leave a mark."""
    folder = tmp_path / "spybin"
    folder.mkdir()
    mark = tmp_path / "called"
    for name in ("systemctl", "crontab"):
        exe = folder / name
        exe.write_text(f'#!/bin/sh\necho "{name} $*" >> {mark}\n')
        exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return f"{folder}:/usr/bin:/bin", mark


def files(out: dict[str, object]) -> dict[str, dict[str, str]]:
    found = out["files"]
    assert isinstance(found, list)
    return {Path(f["path"]).name: f for f in found}


def test_print_renders_both_units_with_absolute_paths(desk: Desk, config_home: Path) -> None:
    out = desk.json("timer", "print", "--user", XDG_CONFIG_HOME=str(config_home))
    units = files(out)
    assert set(units) == {"deskd-tick.service", "deskd-tick.timer"}
    folder = config_home / "systemd" / "user"
    assert {Path(u["path"]).parent for u in units.values()} == {folder}
    service = units["deskd-tick.service"]["text"].splitlines()
    assert f"ExecStart={DESKD} tick" in service
    assert f"WorkingDirectory={desk.home}" in service
    assert f'Environment="DESKD_HOME={desk.home}"' in service
    assert f'Environment="PATH={DESKD.parent}:/usr/local/bin:/usr/bin:/bin"' in service
    assert "Type=oneshot" in service
    assert not any(x.startswith("User=") for x in service)
    timer = units["deskd-tick.timer"]["text"].splitlines()
    assert "OnCalendar=minutely" in timer and "Persistent=true" in timer
    for unit in units.values():
        body = [x for x in unit["text"].splitlines() if not x.startswith("#")]
        assert "@" not in "\n".join(body), body


def test_execute_puts_execute_on_execstart(desk: Desk, config_home: Path) -> None:
    out = desk.json("timer", "print", "--user", "--execute", XDG_CONFIG_HOME=str(config_home))
    service = files(out)["deskd-tick.service"]["text"].splitlines()
    assert f"ExecStart={DESKD} tick --execute" in service


def test_install_user_writes_the_units_and_only_prints_systemctl(
    desk: Desk, config_home: Path, spy_path: tuple[str, Path]
) -> None:
    path, mark = spy_path
    out = desk.ok("timer", "install", "--user", XDG_CONFIG_HOME=str(config_home), PATH=path)
    folder = config_home / "systemd" / "user"
    for name in ("deskd-tick.service", "deskd-tick.timer"):
        assert (folder / name).is_file()
        assert f"written: {folder / name}" in out.stdout
    assert (
        "systemctl --user daemon-reload && systemctl --user enable --now deskd-tick.timer"
        in out.stdout
    )
    assert not mark.exists(), "deskd ran systemctl itself"
    rendered = desk.json("timer", "print", "--user", XDG_CONFIG_HOME=str(config_home))
    assert (folder / "deskd-tick.service").read_text() == files(rendered)["deskd-tick.service"][
        "text"
    ]


def test_reinstalling_reports_unchanged_then_replaced(desk: Desk, config_home: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(config_home)}
    desk.ok("timer", "install", "--user", **env)
    again = files(desk.json("timer", "install", "--user", **env))
    assert {f["status"] for f in again.values()} == {"unchanged"}
    changed = files(desk.json("timer", "install", "--user", "--execute", **env))
    assert changed["deskd-tick.service"]["status"] == "replaced"
    assert changed["deskd-tick.timer"]["status"] == "unchanged"
    service = config_home / "systemd" / "user" / "deskd-tick.service"
    assert f"ExecStart={DESKD} tick --execute" in service.read_text().splitlines()


def test_install_without_xdg_uses_home_dot_config(desk: Desk, tmp_path: Path) -> None:
    home = tmp_path / "person"
    home.mkdir()
    desk.monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    desk.ok("timer", "install", "--user", HOME=str(home))
    assert (home / ".config" / "systemd" / "user" / "deskd-tick.timer").is_file()


def test_dry_run_writes_nothing(desk: Desk, config_home: Path) -> None:
    out = desk.ok("timer", "install", "--user", "--dry-run", XDG_CONFIG_HOME=str(config_home))
    assert "OnCalendar=minutely" in out.stdout
    assert "nothing written" in out.stdout
    assert list(config_home.iterdir()) == []


def test_a_system_unit_runs_as_the_person_behind_sudo(desk: Desk) -> None:
    before = {p: p.exists() for p in (Path("/etc/systemd/system") / "deskd-tick.service",)}
    out = desk.json("timer", "install", "--dry-run", SUDO_USER="alice")
    units = files(out)
    assert Path(units["deskd-tick.service"]["path"]).parent == Path("/etc/systemd/system")
    assert "User=alice" in units["deskd-tick.service"]["text"].splitlines()
    assert out["commands"][0].startswith("systemctl daemon-reload && systemctl enable --now")
    assert {p: p.exists() for p in before} == before


def test_it_refuses_a_folder_without_a_desk_and_writes_nothing(
    desk: Desk, tmp_path: Path, config_home: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    out = desk.run(
        "timer", "install", "--user", DESKD_HOME=str(empty), XDG_CONFIG_HOME=str(config_home)
    )
    assert out.exit_code == 1
    assert out.stderr.startswith("deskd: no desk file at")
    assert list(config_home.iterdir()) == []


def test_spaces_and_percent_signs_are_quoted_for_systemd(tmp_path: Path) -> None:
    target = scheduling.Target(
        home=Path("/srv/my desk%1"),
        deskd=Path("/opt/my env/bin/deskd"),
        execute=True,
        env={"DESKD_DB": '/data/a "b".db'},
    )
    units = scheduling.render_units(target, folder=tmp_path, user=False, run_as="root")
    service = units[0].text.splitlines()
    assert 'ExecStart="/opt/my env/bin/deskd" tick --execute' in service
    assert 'Environment="DESKD_HOME=/srv/my desk%%1"' in service
    assert 'Environment="DESKD_DB=/data/a \\"b\\".db"' in service
    assert "WorkingDirectory=/srv/my desk%%1" in service
    assert not any(x.startswith("User=") for x in service)  # root is systemd's default


def test_the_doctor_helper_finds_an_installed_timer_or_crontab_line(
    desk: Desk, config_home: Path, tmp_path: Path
) -> None:
    env = {"XDG_CONFIG_HOME": str(config_home)}
    assert status.scheduled_ticks(desk.home, env, crontab=None) == []
    desk.ok("timer", "install", "--user", **env)
    found = status.scheduled_ticks(desk.home, env, crontab=None)
    assert found == [f"systemd timer {config_home / 'systemd' / 'user' / 'deskd-tick.timer'}"]
    assert status.scheduled_ticks(tmp_path / "other", env, crontab=None) == []

    line = desk.json("cron-line")["line"]
    crontab = (
        f'MAILTO=""\n# {line}\n{line}\n* * * * * DESKD_HOME=/elsewhere /x/{scheduling.DRIVER}\n'
    )
    found = status.scheduled_ticks(desk.home, {"XDG_CONFIG_HOME": str(tmp_path)}, crontab=crontab)
    assert found == [f"crontab: {line}"]


def test_the_doctor_helper_warns_when_nothing_is_scheduled(
    desk: Desk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scheduling, "read_crontab", lambda: None)
    monkeypatch.setattr(scheduling, "unit_dir", lambda environ, user: tmp_path / str(user))
    level, detail = status.schedule_check(desk.home, {})
    assert level == "warn"
    assert "deskd cron-line" in detail
