"""The scripts ship twice — in the repository's scripts/ and inside the package (for
`deskd cron-line` / `deskd timer install` from an installed deskd) — and must not drift."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from deskd.schedule import service as scheduling

ROOT = Path(__file__).resolve().parents[2]
COPIES = [
    ("scripts/cron/wake_orchestrator.sh", scheduling.DRIVER),
    ("scripts/systemd/deskd-tick.service", scheduling.SERVICE),
    ("scripts/systemd/deskd-tick.timer", scheduling.TIMER),
]


@pytest.mark.parametrize(("repo_path", "name"), COPIES)
def test_the_repository_and_package_copies_are_identical(repo_path: str, name: str) -> None:
    repo = ROOT / repo_path
    packaged = scheduling.template_path(name)
    assert packaged.read_bytes() == repo.read_bytes(), (
        f"{repo_path} and src/deskd/templates/{name} differ: edit one, copy it to the other"
    )


def test_the_driver_is_executable_in_both_places() -> None:
    for path in (ROOT / COPIES[0][0], scheduling.template_path(scheduling.DRIVER)):
        assert os.access(path, os.X_OK), f"{path} lost its executable bit"


def test_the_templates_are_package_data() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["deskd"]
    assert "templates/*" in patterns
    assert scheduling.TEMPLATES == ROOT / "src" / "deskd" / "templates"


def test_the_timer_says_minutely_and_persistent() -> None:
    timer = scheduling.template_path(scheduling.TIMER).read_text("utf-8")
    assert "OnCalendar=minutely" in timer.splitlines()
    assert "Persistent=true" in timer.splitlines()
    service = scheduling.template_path(scheduling.SERVICE).read_text("utf-8")
    assert "Type=oneshot" in service.splitlines()
