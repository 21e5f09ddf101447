"""The session hook stays light: stdlib, deskd.paths and deskd.store only, on every path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hook_helpers import HookDesk, fixture, hook_env

from conftest import Desk

HEAVY = (
    "pydantic",
    "pydantic_settings",
    "click",
    "apprise",
    "filelock",
    "croniter",
    "tenacity",
    "typing",
    "logging",
    "dataclasses",
    "zoneinfo",
    "deskd.config",
    "deskd.config.desk_file",
    "deskd.errors",
    "deskd.core",
    "deskd.service",
    "deskd.adapters",
    "deskd.cli",
    "deskd.store.records",
)

PROBE = """
import json, sys
from deskd.hook import run
run()
sys.stderr.write(json.dumps(sorted(sys.modules)))
"""


def loaded_after(code: str, env: dict[str, str], stdin: bytes = b"") -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", code], input=stdin, env=env, capture_output=True, check=True
    )
    return list(json.loads(done.stderr))


SHARED = ("deskd.core", "deskd.core.text")
"""Of core, only what frames text (stdlib only), shared with the wake prompt."""


def heavy(modules: list[str]) -> list[str]:
    return [
        m
        for m in modules
        if m not in SHARED and any(m == h or m.startswith(h + ".") for h in HEAVY)
    ]


def test_importing_the_hook_loads_nothing_heavy(tmp_path: Path) -> None:
    env = hook_env(tmp_path, role=None, now=None)
    modules = loaded_after(
        "import json, sys, deskd.hook; sys.stderr.write(json.dumps(sorted(sys.modules)))", env
    )
    assert "deskd.hook" in modules
    assert heavy(modules) == []
    assert "sqlite3" not in modules  # the database is opened only when there is a role


def test_surfacing_items_loads_nothing_heavy(desk: Desk) -> None:
    hd = HookDesk(desk)
    hd.enqueue("alpha", "disk 91%")
    env = hd.env()
    env.pop("DESKD_NOW")  # the real clock: the pinned one needs datetime, the common path not
    modules = loaded_after(PROBE, env, json.dumps(fixture("post_tool_use")).encode())
    assert "deskd.store.items" in modules  # it did surface
    assert hd.shown_ids() != []
    assert heavy(modules) == []


@pytest.mark.parametrize("stdin", [b"{not json", b""])
def test_failing_calls_load_nothing_heavy(desk: Desk, stdin: bytes) -> None:
    modules = loaded_after(PROBE, HookDesk(desk).env(), stdin)
    assert heavy(modules) == []


def test_the_shim_script_runs_the_hook(desk: Desk) -> None:
    hd = HookDesk(desk)
    hd.enqueue("alpha", "disk 91%")
    shim = Path(__file__).resolve().parents[2] / "scripts" / "session_hook.py"
    done = subprocess.run(
        [sys.executable, str(shim)],
        input=json.dumps(fixture("post_tool_use")).encode(),
        env=hd.env(),
        capture_output=True,
        check=True,
    )
    doc = json.loads(done.stdout)
    assert "disk 91%" in doc["hookSpecificOutput"]["additionalContext"]
