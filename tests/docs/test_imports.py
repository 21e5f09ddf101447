"""Commands that do not page, serve or schedule must not pay for apprise, FastAPI or croniter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DESK_TOML

HEAVY = ("apprise", "fastapi", "uvicorn", "croniter")

PROBE = """
import sys
from deskd.cli.main import main
code = 0
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code or 0
print("exit:%s" % code)
print("\\n".join(sorted(sys.modules)))
"""


def modules_after(args: list[str], home: Path, *, exit_code: int | None = 0) -> set[str]:
    """The modules a fresh interpreter imported to run `deskd ARGS`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env["DESKD_HOME"] = str(home)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    status, *modules = proc.stdout.split("exit:", 1)[1].split()
    assert exit_code is None or int(status) == exit_code, proc.stdout + proc.stderr
    return set(modules)


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "deskd.toml").write_text(DESK_TOML)
    return tmp_path


def test_version_imports_nothing_heavy_not_even_pydantic(home: Path) -> None:
    modules = modules_after(["--version"], home)
    assert heavy_in(modules) == []
    assert "pydantic" not in modules


def test_inbox_enqueue_imports_no_apprise_fastapi_uvicorn_or_croniter(home: Path) -> None:
    args = ["inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk 91%"]
    modules = modules_after(args, home)
    assert "deskd.service.desk.inbox" in modules  # the command really ran
    assert heavy_in(modules) == []


@pytest.mark.parametrize(
    ("args", "exit_code"),
    [
        (["inbox", "list", "--for", "alpha"], 0),
        (["ledger"], 0),
        (["doctor"], None),
        (["status"], 0),
        (["roles"], 0),
        (["wake", "list"], 0),
    ],
    ids=["inbox list", "ledger", "doctor", "status", "roles", "wake list"],
)
def test_reading_commands_import_nothing_heavy(
    home: Path, args: list[str], exit_code: int | None
) -> None:
    assert heavy_in(modules_after(args, home, exit_code=exit_code)) == []
