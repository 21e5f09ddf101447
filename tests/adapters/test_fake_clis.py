"""The fake agent CLIs (tests/fakes) run as real processes through each adapter: what the
executor will see — session ids as they arrive, landings, failure classes, timeouts."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from agent_runner import FAKES, agent_env, run_agent

from deskd.adapters.agents import adapter_for
from deskd.adapters.agents.base import SESSION, TURN, LaunchSpec

RESETS_AT = 1796040000

# (kind, FAKE_AGENT_MODE) -> (failure class, landed)
EXPECTED: dict[tuple[str, str], tuple[str | None, bool]] = {
    ("claude", "success"): (None, True),
    ("claude", "never_lands"): ("transient", False),
    ("claude", "not_logged_in"): ("permanent", False),
    ("claude", "usage_limit"): ("usage_limit", False),
    ("claude", "no_result"): (None, True),
    ("claude", "task_failed"): ("task", True),
    ("codex", "success"): (None, True),
    ("codex", "reconnect"): (None, True),
    ("codex", "never_lands"): ("transient", False),
    ("codex", "not_logged_in"): ("permanent", False),
    ("codex", "usage_limit"): ("usage_limit", False),
    ("codex", "no_result"): (None, True),
    ("codex", "task_failed"): ("transient", False),
    ("gemini", "success"): (None, True),
    ("gemini", "never_lands"): ("transient", False),
    ("gemini", "not_logged_in"): ("permanent", False),
    ("gemini", "usage_limit"): ("usage_limit", False),
    ("gemini", "no_result"): ("transient", False),
    ("gemini", "task_failed"): ("task", False),
    ("opencode", "success"): (None, True),
    ("opencode", "never_lands"): ("transient", False),
    ("opencode", "not_logged_in"): ("permanent", False),
    ("opencode", "usage_limit"): ("usage_limit", False),
    ("opencode", "no_result"): (None, True),
    ("opencode", "task_failed"): ("task", False),
}


def launch(kind: str, mode: str = "spawn", session_id: str | None = None) -> LaunchSpec:
    return LaunchSpec(
        kind=kind,
        command=str(FAKES / f"fake-{kind}"),
        args=(),
        mode=mode,
        prompt="You have 1 queued item.\nRun `deskd inbox list`.",
        session_id=session_id or (str(uuid.uuid4()) if kind == "claude" else None),
        model="",
        allowed_tools=("Read", "Bash") if kind == "claude" else (),
        settings_path=None,
        role="alpha",
    )


@pytest.mark.parametrize(("kind", "mode"), list(EXPECTED), ids=[f"{k}-{m}" for k, m in EXPECTED])
def test_the_fake_ends_as_its_mode_says(kind: str, mode: str, tmp_path: Path) -> None:
    adapter = adapter_for(kind)
    spec = launch(kind)
    env = agent_env(FAKE_AGENT_MODE=mode, DESKD_SIM_RESETS_AT=str(RESETS_AT))
    ran = run_agent(adapter, adapter.argv(spec), env=env, cwd=tmp_path)
    failure, landed = EXPECTED[(kind, mode)]
    assert (ran.outcome.failure_class, ran.state.landed) == (failure, landed), (
        ran.outcome,
        ran.stderr,
    )
    assert ran.outcome.session_id is not None or (kind, mode) in {
        ("gemini", "never_lands"),
        ("gemini", "no_result"),
    }
    if kind == "claude":
        assert ran.outcome.session_id == spec.session_id  # the pre-assigned id
    if (kind, mode) == ("claude", "usage_limit"):
        assert ran.outcome.reset_at_ms == RESETS_AT * 1000


def test_the_session_id_arrives_before_the_first_turn(tmp_path: Path) -> None:
    adapter = adapter_for("claude")
    ran = run_agent(adapter, adapter.argv(launch("claude")), env=agent_env(), cwd=tmp_path)
    assert ran.signals[0] == (0, {SESSION})
    assert ran.signals[1][1] == {TURN}


@pytest.mark.parametrize("kind", ["codex", "gemini", "opencode"])
def test_a_resumed_fake_reports_the_session_it_was_given(kind: str, tmp_path: Path) -> None:
    adapter = adapter_for(kind)
    native = "ses_native42" if kind == "opencode" else "4a2b7c9d-0e1f-4a3b-8c5d-6e7f8a9b0c1d"
    spec = launch(kind, "resume", session_id=native)
    ran = run_agent(adapter, adapter.argv(spec), env=agent_env(), cwd=tmp_path)
    assert ran.outcome.failure_class is None
    assert ran.outcome.session_id == native


def test_the_fake_records_its_argv(tmp_path: Path) -> None:
    adapter = adapter_for("codex")
    argv = adapter.argv(launch("codex"))
    target = tmp_path / "argv.json"
    run_agent(adapter, argv, env=agent_env(FAKE_ARGV_FILE=str(target)), cwd=tmp_path)
    assert json.loads(target.read_text())[1:] == argv[1:]


def test_a_hanging_claude_is_killed_at_the_timeout_with_its_session_recorded(
    tmp_path: Path,
) -> None:
    adapter = adapter_for("claude")
    spec = launch("claude")
    ran = run_agent(
        adapter,
        adapter.argv(spec),
        env=agent_env(FAKE_AGENT_MODE="hang"),
        timeout_after_lines=1,  # its init line, with the session id, then it hangs
        cwd=tmp_path,
    )
    assert ran.exit_code is None
    assert ran.outcome.failure_class == "transient"
    assert ran.outcome.detail == "timed out before any model turn"
    assert ran.outcome.session_id == spec.session_id


@pytest.mark.parametrize("kind", ["codex", "gemini", "opencode"])
def test_a_hanging_fake_is_a_transient_timeout(kind: str, tmp_path: Path) -> None:
    adapter = adapter_for(kind)
    ran = run_agent(
        adapter,
        adapter.argv(launch(kind)),
        env=agent_env(FAKE_AGENT_MODE="hang"),
        timeout=0.5,
        cwd=tmp_path,
    )
    assert ran.outcome.failure_class == "transient"
    assert ran.outcome.detail.startswith("timed out")


def test_the_simulator_refuses_what_claude_refuses(tmp_path: Path) -> None:
    adapter = adapter_for("claude")
    argv = [str(FAKES / "fake-claude"), "-p", "hi", "--session-id=not-a-uuid"]
    argv += ["--output-format", "stream-json", "--verbose"]
    ran = run_agent(adapter, argv, env=agent_env(), cwd=tmp_path)
    assert ran.exit_code == 1
    assert "Invalid session ID" in ran.stderr
    ran = run_agent(
        adapter,
        [str(FAKES / "fake-claude"), "-p", "hi", "--output-format", "stream-json"],
        env=agent_env(),
        cwd=tmp_path,
    )
    assert ran.exit_code == 1 and "requires --verbose" in ran.stderr


def test_the_simulator_launcher_runs_with_this_interpreter(tmp_path: Path) -> None:
    from deskd.sim.agent import write_launcher

    command = write_launcher(tmp_path / "claude")
    adapter = adapter_for("claude")
    spec = launch("claude")
    argv = adapter.argv(spec._replace(command=str(command)))
    ran = run_agent(adapter, argv, env=agent_env(DESKD_SIM_MODE="task_failed"), cwd=tmp_path)
    assert ran.outcome.failure_class == "task"
    assert ran.outcome.session_id == spec.session_id
