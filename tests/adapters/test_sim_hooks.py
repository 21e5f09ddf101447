"""Per-run settings from run_settings(), read by the simulated ``claude -p`` (fake-claude),
whose hook commands run the way Claude Code runs them: through a shell, the event JSON on
stdin, the session's environment (the settings' env block, DESKD_WAKE_TOKEN inherited)."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from agent_runner import FAKES, agent_env, run_agent

from deskd.adapters.agents import adapter_for
from deskd.adapters.agents.base import LaunchSpec
from deskd.adapters.agents.claude import (
    HOOK_EVENTS,
    desk_env,
    hook_executable,
    run_settings,
    write_settings,
)
from deskd.sim.agent import matches

HOOK_FIXTURES = Path(__file__).resolve().parents[1] / "hook" / "fixtures"
FIXTURE_OF = {
    "SessionStart": "session_start.json",
    "UserPromptSubmit": "user_prompt_submit.json",
    "PostToolUse": "post_tool_use.json",
    "PostToolUseFailure": "post_tool_use_failure.json",
    "Stop": "stop.json",
    "StopFailure": "stop_failure_rate_limit.json",
}
RECORDER = """#!{python}
import json, os, sys
payload = json.load(sys.stdin)
keep = ("DESKD_ROLE", "DESKD_DB", "DESKD_HOME", "DESKD_WAKE_TOKEN", "CLAUDE_PROJECT_DIR")
env = {{k: os.environ.get(k) for k in keep}}
with open({log!r}, "a") as handle:
    handle.write(json.dumps({{"payload": payload, "env": env, "cwd": os.getcwd()}}) + "\\n")
"""


@pytest.fixture
def recorder(tmp_path: Path) -> tuple[Path, Path]:
    """A hook script in a folder with a space in its name, and the log it appends to."""
    folder = tmp_path / "hook dir"
    folder.mkdir()
    log = tmp_path / "calls.jsonl"
    script = folder / "record-hook"
    script.write_text(RECORDER.format(python=sys.executable, log=str(log)))
    script.chmod(0o755)
    return script, log


def launch_claude(settings: Path, session_id: str) -> LaunchSpec:
    return LaunchSpec(
        kind="claude",
        command=str(FAKES / "fake-claude"),
        args=(),
        mode="spawn",
        prompt="You have queued items. Run `deskd inbox list`.",
        session_id=session_id,
        model="",
        allowed_tools=("Bash",),
        settings_path=str(settings),
        role="alpha",
    )


def calls(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def run_sim(tmp_path: Path, hook: str, mode: str, **env: str) -> tuple[Any, str]:
    session_id = str(uuid.uuid4())
    settings = run_settings(
        hook_command=hook,
        env={
            "DESKD_ROLE": "alpha",
            "DESKD_DB": str(tmp_path / "x.db"),
            "DESKD_HOME": str(tmp_path),
        },
    )
    path = write_settings(tmp_path / "run" / "settings.json", settings)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    adapter = adapter_for("claude")
    ran = run_agent(
        adapter,
        adapter.argv(launch_claude(path, session_id)),
        env=agent_env(FAKE_AGENT_MODE=mode, DESKD_WAKE_TOKEN="tok-7", **env),
        cwd=work,
    )
    return ran, session_id


def test_the_settings_wire_every_event_the_session_hook_handles() -> None:
    settings = run_settings(
        hook_command="/opt/deskd/bin/deskd-session-hook", env={"DESKD_DB": "/d.db"}
    )
    assert list(settings["hooks"]) == list(HOOK_EVENTS)
    for event, groups in settings["hooks"].items():
        (group,) = groups
        assert group["hooks"] == [
            {"type": "command", "command": "/opt/deskd/bin/deskd-session-hook", "timeout": 30}
        ]
        takes_matcher = event not in ("UserPromptSubmit", "Stop")
        assert ("matcher" in group) == takes_matcher
        if takes_matcher:
            assert group["matcher"] == "*"
    assert settings["env"] == {"DESKD_DB": "/d.db"}


def test_the_hook_executable_is_this_environments_absolute_path() -> None:
    path = hook_executable()
    assert Path(path).is_absolute()
    assert Path(path).name == "deskd-session-hook"
    assert Path(path).parent == Path(sys.executable).parent


def test_the_simulator_runs_each_hook_with_claude_codes_payloads(
    tmp_path: Path, recorder: tuple[Path, Path]
) -> None:
    script, log = recorder
    ran, session_id = run_sim(tmp_path, str(script), "success")
    assert ran.outcome.failure_class is None, ran.stderr
    seen = calls(log)
    assert [c["payload"]["hook_event_name"] for c in seen] == [
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "Stop",
    ]
    work = str(tmp_path / "work")
    for call in seen:
        payload = call["payload"]
        fixture = json.loads((HOOK_FIXTURES / FIXTURE_OF[payload["hook_event_name"]]).read_text())
        assert set(payload) == set(fixture), payload["hook_event_name"]
        assert payload["session_id"] == session_id
        assert payload["cwd"] == work and call["cwd"] == work
        assert payload["transcript_path"].endswith(f"{session_id}.jsonl")
        assert call["env"] == {
            "DESKD_ROLE": "alpha",  # from the settings' env block
            "DESKD_DB": str(tmp_path / "x.db"),
            "DESKD_HOME": str(tmp_path),
            "DESKD_WAKE_TOKEN": "tok-7",  # inherited from the launched process
            "CLAUDE_PROJECT_DIR": work,
        }
    assert seen[0]["payload"]["source"] == "startup"
    assert seen[2]["payload"]["tool_name"] == "Bash"


@pytest.mark.parametrize(
    ("mode", "events"),
    [
        ("never_lands", ["SessionStart"]),
        ("not_logged_in", ["SessionStart", "UserPromptSubmit", "StopFailure"]),
        ("usage_limit", ["SessionStart", "UserPromptSubmit", "StopFailure"]),
        ("task_failed", ["SessionStart", "UserPromptSubmit", "PostToolUse"]),
        ("no_result", ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"]),
    ],
)
def test_each_mode_calls_the_hooks_claude_code_would(
    tmp_path: Path, recorder: tuple[Path, Path], mode: str, events: list[str]
) -> None:
    script, log = recorder
    run_sim(tmp_path, str(script), mode)
    seen = calls(log)
    assert [c["payload"]["hook_event_name"] for c in seen] == events
    for call in seen:
        name = call["payload"]["hook_event_name"]
        fixture = json.loads((HOOK_FIXTURES / FIXTURE_OF[name]).read_text())
        assert set(call["payload"]) == set(fixture), name
    if mode == "usage_limit":
        assert seen[2]["payload"]["error"] == "rate_limit"


@pytest.mark.parametrize(
    ("matcher", "value", "expected"),
    [
        (None, "Bash", True),
        ("", "Bash", True),
        ("*", "Bash", True),
        ("Bash", "Bash", True),
        ("Edit|Write", "Write", True),
        ("Edit|Write", "Bash", False),
        ("Bas", "Bash", False),  # plain names are exact
        ("^B.*", "Bash", True),  # anything else is a regex
        ("mcp__.*", "Bash", False),
    ],
)
def test_the_simulator_matches_as_claude_code_does(
    matcher: str | None, value: str, expected: bool
) -> None:
    assert matches(matcher, value) is expected


def test_the_real_session_hook_lands_and_the_simulated_tool_call_acks(
    desk: Any, tmp_path: Path
) -> None:
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk 91%")
    desk.ok("inbox", "enqueue", "--for", "beta", "--source", "alert", "--title", "not yours")
    session_id = str(uuid.uuid4())
    settings = run_settings(
        hook_command=hook_executable(),
        env=desk_env(home=desk.home, db=desk.db_path, role="alpha"),
    )
    path = write_settings(tmp_path / "settings-1.json", settings)
    adapter = adapter_for("claude")
    ran = run_agent(
        adapter,
        adapter.argv(launch_claude(path, session_id)),
        env=agent_env(DESKD_SIM_ACK="1", DESKD_NOW=desk.now_iso, DESKD_WAKE_TOKEN="tok-1"),
        cwd=tmp_path,
    )
    assert ran.outcome.failure_class is None, ran.stderr
    assert "showed me 1 item(s) (#1)" in ran.outcome.detail
    ledger = {row["item_id"]: row["state"] for row in desk.json("ledger")}
    assert ledger == {1: "read", 2: "queued"}
    (alpha,) = [r for r in desk.json("roles") if r["role"] == "alpha"]
    assert alpha["session_id"] == session_id
    assert alpha["presence"] == "idle"  # Stop: resting, resumable
