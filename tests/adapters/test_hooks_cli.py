"""``deskd session-hook print`` / ``install``: the session hook for sessions started by
hand, merged into a project's settings with a backup, never duplicated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from deskd.adapters.agents.claude import HOOK_EVENTS, hook_executable, merge_settings

USER_SETTINGS = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "env": {"FOO": "1", "DESKD_ROLE": "old"},
    "hooks": {
        "PostToolUse": [
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "ruff format"}]}
        ],
        "Stop": [
            {
                "hooks": [
                    {"type": "command", "command": "notify-send done"},
                    {"type": "command", "command": "/old/venv/bin/deskd-session-hook"},
                ]
            }
        ],
    },
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "myapp"
    (folder / ".claude").mkdir(parents=True)
    return folder


def settings_file(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def deskd_commands(settings: dict[str, Any], event: str) -> list[str]:
    return [
        h["command"]
        for g in settings["hooks"][event]
        for h in g["hooks"]
        if "deskd-session-hook" in h["command"]
    ]


def test_print_gives_the_settings_with_absolute_paths(desk: Any) -> None:
    settings = desk.json("session-hook", "print", "--role", "alpha")
    assert list(settings["hooks"]) == list(HOOK_EVENTS)
    assert deskd_commands(settings, "PostToolUse") == [hook_executable()]
    assert settings["env"] == {
        "DESKD_HOME": str(desk.home),
        "DESKD_DB": str(desk.db_path),
        "DESKD_ROLE": "alpha",
    }
    assert not desk.db_path.exists()  # printing opens no database


def test_print_without_a_role_names_none(desk: Any) -> None:
    out = desk.ok("session-hook", "print")
    assert "DESKD_ROLE" not in json.loads(out.stdout)["env"]
    assert "deskd session-hook install" in out.stderr


def test_print_refuses_an_unknown_role(desk: Any) -> None:
    out = desk.run("session-hook", "print", "--role", "zeta")
    assert out.exit_code == 1
    assert "unknown role 'zeta': did you mean 'beta'? (roles: alpha, beta, gamma)" in out.stderr


def test_install_creates_the_settings_when_missing(desk: Any, project: Path) -> None:
    result = desk.json("session-hook", "install", "--project", str(project), "--role", "beta")
    assert result["created"] and result["changed"] and result["backup"] is None
    written = json.loads(settings_file(project).read_text())
    assert written == desk.json("session-hook", "print", "--role", "beta")


def test_install_merges_keeps_the_users_settings_and_backs_up(desk: Any, project: Path) -> None:
    original = json.dumps(USER_SETTINGS, indent=4)
    settings_file(project).write_text(original)
    result = desk.json("session-hook", "install", "--project", str(project), "--role", "alpha")
    backup = project / ".claude" / "settings.json.bak-20261201T140000Z"
    assert result["backup"] == str(backup)
    assert backup.read_text() == original
    merged = json.loads(settings_file(project).read_text())
    assert merged["permissions"] == USER_SETTINGS["permissions"]
    assert merged["env"]["FOO"] == "1" and merged["env"]["DESKD_ROLE"] == "alpha"
    assert merged["hooks"]["PostToolUse"][0] == USER_SETTINGS["hooks"]["PostToolUse"][0]
    # the user's Stop hook stays; deskd's old entry (another venv) is replaced, not kept
    stop_commands = [h["command"] for g in merged["hooks"]["Stop"] for h in g["hooks"]]
    assert stop_commands == ["notify-send done", hook_executable()]
    for event in HOOK_EVENTS:
        assert deskd_commands(merged, event) == [hook_executable()], event


def test_a_second_install_changes_nothing(desk: Any, project: Path) -> None:
    settings_file(project).write_text(json.dumps(USER_SETTINGS))
    desk.json("session-hook", "install", "--project", str(project), "--role", "alpha")
    first = settings_file(project).read_text()
    desk.advance(minutes=5)
    again = desk.json("session-hook", "install", "--project", str(project), "--role", "alpha")
    assert (again["changed"], again["backup"]) == (False, None)
    assert settings_file(project).read_text() == first
    assert len(list((project / ".claude").glob("settings.json.bak-*"))) == 1


def test_install_refuses_a_broken_settings_file_and_leaves_it(desk: Any, project: Path) -> None:
    settings_file(project).write_text("{ not json")
    out = desk.run("session-hook", "install", "--project", str(project), "--role", "alpha")
    assert out.exit_code == 1
    assert "not valid JSON" in out.stderr
    assert settings_file(project).read_text() == "{ not json"
    assert list((project / ".claude").glob("*.bak-*")) == []


def test_install_needs_a_role(desk: Any, project: Path) -> None:
    out = desk.run("session-hook", "install", "--project", str(project))
    assert out.exit_code == 1 and "--role is required" in out.stderr
    assert not settings_file(project).exists()


def test_an_agent_may_install_only_for_its_own_role(desk: Any, project: Path) -> None:
    out = desk.run(
        "session-hook", "install", "--project", str(project), "--role", "beta", role="alpha"
    )
    assert out.exit_code == 1 and "agents may act only as their own role" in out.stderr
    assert not settings_file(project).exists()
    result = desk.json("session-hook", "install", "--project", str(project), role="alpha")
    assert result["role"] == "alpha"


def test_merging_replaces_deskd_entries_inside_shared_groups() -> None:
    ours = {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/new/deskd-session-hook"}]}]}
    }
    merged = merge_settings(USER_SETTINGS, ours)
    assert merged["hooks"]["Stop"] == [
        {"hooks": [{"type": "command", "command": "notify-send done"}]},
        {"hooks": [{"type": "command", "command": "/new/deskd-session-hook"}]},
    ]
    assert USER_SETTINGS["hooks"]["Stop"][0]["hooks"][1]["command"].startswith("/old")  # untouched
