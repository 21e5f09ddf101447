"""Each host's last executing tick and whether it is overdue, in `deskd status`, `deskd
doctor` and the console's board; DESKD_TICK_OVERDUE moves the mark (default 3 minutes)."""

from __future__ import annotations

import sys
from pathlib import Path

from fastapi.testclient import TestClient

from conftest import Desk

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
from web_helpers import CODE, log_in, make_app


def two_hosts_gpu_quiet(desk: Desk, minutes: int) -> None:
    """build and gpu both tick; then only build, ``minutes`` later."""
    desk.ok("tick", "--execute", DESKD_HOST_NAME="build")
    desk.ok("tick", "--execute", DESKD_HOST_NAME="gpu")
    desk.advance(minutes=minutes)
    desk.ok("tick", "--execute", DESKD_HOST_NAME="build")


def test_status_marks_the_host_whose_ticks_stopped_as_overdue(desk: Desk) -> None:
    two_hosts_gpu_quiet(desk, minutes=4)
    hosts = {h["name"]: h for h in desk.json("status")["hosts"]}
    assert hosts["gpu"]["overdue"] is True and hosts["gpu"]["overdue_after_s"] == 180
    assert hosts["build"]["overdue"] is False
    text = desk.ok("status").stdout
    assert "host gpu: last executing tick 4m ago · overdue (none for 3m or more)" in text
    assert "host build: last executing tick 0s ago\n" in text


def test_the_overdue_mark_is_a_setting(desk: Desk) -> None:
    two_hosts_gpu_quiet(desk, minutes=4)
    desk.setenv("DESKD_TICK_OVERDUE", "10m")
    hosts = {h["name"]: h for h in desk.json("status")["hosts"]}
    assert hosts["gpu"]["overdue"] is False and hosts["gpu"]["overdue_after_s"] == 600
    desk.setenv("DESKD_TICK_OVERDUE", "30s")
    out = desk.run("status")
    assert out.exit_code == 1
    assert "invalid DESKD_TICK_OVERDUE '30s' (a duration of at least 1m" in out.stderr


def test_doctor_warns_per_overdue_host_and_names_where_to_look(desk: Desk) -> None:
    two_hosts_gpu_quiet(desk, minutes=4)
    out = desk.run("doctor", "--json")  # other checks fail here (no agent CLI on PATH)
    checks = {c["name"]: c for c in out.json()["checks"]}
    assert checks["ticks on build"]["level"] == "ok"
    gpu = checks["ticks on gpu"]
    assert gpu["level"] == "warn" and gpu["ok"] is True  # a warning never fails the doctor
    assert gpu["detail"].startswith("last executing tick 4m ago: overdue")
    assert "deskd timer status" in gpu["detail"]


def test_the_console_board_says_when_a_host_is_overdue(desk: Desk) -> None:
    two_hosts_gpu_quiet(desk, minutes=5)
    with TestClient(make_app(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE)) as client:
        log_in(client)
        board = client.get("/").text
    gpu_row = board.split('data-host="gpu"')[1].split("</tr>")[0]
    assert "5m ago" in gpu_row and "overdue after 3m" in gpu_row
    build_row = board.split('data-host="build"')[1].split("</tr>")[0]
    assert "overdue" not in build_row
