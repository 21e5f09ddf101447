"""The argv each adapter builds, per docs/contract.md "The agent CLIs": exact lists, no shell."""

from __future__ import annotations

import pytest

from deskd.adapters.agents import adapter_for
from deskd.adapters.agents.base import LaunchSpec
from deskd.core.values import AGENT_KINDS
from deskd.errors import InvalidLaunch

SID = "3f1c9a7e-5b2d-4c8e-9a61-0d2e7b4f8c13"
OPENCODE_SID = "ses_dcf379937ffe5xa0NrKr8AzjOm"
PROMPT = 'Wake: 2 items for alpha.\nRun "deskd inbox list" — it\'s {role}; $HOME `x`'


def spec(kind: str, mode: str = "spawn", **overrides: object) -> LaunchSpec:
    base = LaunchSpec(
        kind=kind,
        command=f"/usr/bin/{kind}",
        args=(),
        mode=mode,
        prompt=PROMPT,
        session_id=SID,
        model="",
        allowed_tools=(),
        settings_path=None,
        role="alpha",
    )
    return base._replace(**overrides)


CASES = {
    "claude spawn, full": (
        spec(
            "claude",
            model="opus",
            allowed_tools=("Read", "Bash"),
            settings_path="/desk/run/settings-7.json",
        ),
        [
            "/usr/bin/claude",
            "-p",
            PROMPT,
            f"--session-id={SID}",
            "--output-format",
            "stream-json",
            "--verbose",
            "--model",
            "opus",
            "--allowedTools",
            "Read,Bash",
            "--settings",
            "/desk/run/settings-7.json",
        ],
    ),
    "claude resume": (
        spec("claude", "resume", settings_path="/s.json"),
        [
            "/usr/bin/claude",
            "-p",
            PROMPT,
            f"--resume={SID}",
            "--output-format",
            "stream-json",
            "--verbose",
            "--settings",
            "/s.json",
        ],
    ),
    "claude spawn, no id, extra args": (
        spec("claude", session_id=None, args=("--max-turns", "30")),
        [
            "/usr/bin/claude",
            "-p",
            PROMPT,
            "--output-format",
            "stream-json",
            "--verbose",
            "--max-turns",
            "30",
        ],
    ),
    "codex spawn": (
        spec("codex", model="gpt-5", allowed_tools=("Bash",)),
        ["/usr/bin/codex", "exec", "--json", "-m", "gpt-5", "--", PROMPT],
    ),
    "codex resume": (
        spec("codex", "resume"),
        ["/usr/bin/codex", "exec", "resume", "--json", "--", SID, PROMPT],
    ),
    "gemini spawn": (
        spec("gemini", model="gemini-2.5-pro"),
        ["/usr/bin/gemini", "-p", PROMPT, "--output-format", "json", "-m", "gemini-2.5-pro"],
    ),
    "gemini resume": (
        spec("gemini", "resume"),
        ["/usr/bin/gemini", "-p", PROMPT, "--output-format", "json", f"--resume={SID}"],
    ),
    "opencode spawn": (
        spec("opencode", model="anthropic/claude-sonnet-4"),
        [
            "/usr/bin/opencode",
            "run",
            "--format",
            "json",
            "--model",
            "anthropic/claude-sonnet-4",
            PROMPT,
        ],
    ),
    "opencode resume": (
        spec("opencode", "resume", session_id=OPENCODE_SID),
        ["/usr/bin/opencode", "run", "--format", "json", f"--session={OPENCODE_SID}", PROMPT],
    ),
    "command template": (
        spec(
            "command",
            args=(
                "--mode={mode}",
                "{prompt}",
                "--sid",
                "{session_id}",
                "{role}:{model}",
                "{other}",
            ),
            model="m1",
        ),
        ["/usr/bin/command", "--mode=spawn", PROMPT, "--sid", SID, "alpha:m1", "{other}"],
    ),
    "command template without a session": (
        spec("command", args=("run", "{session_id}"), session_id=None),
        ["/usr/bin/command", "run", ""],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_it_builds_the_exact_argv(name: str) -> None:
    launch, expected = CASES[name]
    assert adapter_for(launch.kind).argv(launch) == expected


@pytest.mark.parametrize("kind", AGENT_KINDS)
def test_it_keeps_the_prompt_one_argv_element(kind: str) -> None:
    launch = spec(kind, args=("{prompt}",) if kind == "command" else ())
    argv = adapter_for(kind).argv(launch)
    assert argv.count(PROMPT) == 1
    assert all(isinstance(a, str) for a in argv)


def test_it_fills_the_template_in_one_pass() -> None:
    # A prompt that mentions {role} is data, not a placeholder to expand again.
    launch = spec("command", args=("{prompt}",), prompt="say {role} and {model}", model="m")
    assert adapter_for("command").argv(launch) == ["/usr/bin/command", "say {role} and {model}"]


@pytest.mark.parametrize("kind", ["claude", "codex", "gemini", "opencode"])
def test_it_refuses_a_resume_without_a_session_id(kind: str) -> None:
    with pytest.raises(InvalidLaunch, match="session id"):
        adapter_for(kind).argv(spec(kind, "resume", session_id=None))


@pytest.mark.parametrize("kind", AGENT_KINDS)
def test_it_refuses_an_unknown_mode(kind: str) -> None:
    with pytest.raises(InvalidLaunch, match="unknown mode"):
        adapter_for(kind).argv(spec(kind, "restart"))


def test_it_refuses_an_unknown_kind_naming_the_known_ones() -> None:
    with pytest.raises(InvalidLaunch) as err:
        adapter_for("cursor")
    assert "claude, codex, gemini, opencode, command" in err.value.message


def test_every_kind_is_registered_under_its_own_name() -> None:
    assert set(AGENT_KINDS) == {"claude", "codex", "gemini", "opencode", "command"}
    for kind in AGENT_KINDS:
        assert adapter_for(kind).kind == kind
