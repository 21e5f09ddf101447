"""One table of agent CLIs (``deskd.adapters.agents.KINDS``): every other module asks it, so
adding a CLI touches its adapter, its line and the desk file's closed set, and nothing else."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from deskd.adapters.agents import KINDS, adapter_for, session_id_problem
from deskd.adapters.agents.base import AgentAdapter
from deskd.core.values import AGENT_KINDS
from deskd.session_ids import ANY_KIND
from deskd.session_ids import session_id_problem as any_problem

SRC = Path(__file__).resolve().parents[2] / "src" / "deskd"
CLIS = frozenset(AGENT_KINDS) - {"command"}  # "command" is also an everyday word
MAY_NAME_A_CLI = {
    "core/values.py": "the desk file's closed set of kinds, held equal to KINDS below",
    "hook.py": "the session hook speaks Claude Code's hook protocol and says so on its rows",
    "sim/agent.py": "the simulated agent stands in for `claude -p`",
}
SAMPLES = {
    "claude": "3f1c9a7e-5b2d-4c8e-9a61-0d2e7b4f8c13",
    "codex": "0199a213-81c0-7800-8aa1-bbab2a035a53",
    "gemini": "3f1c9a7e-5b2d-4c8e-9a61-0d2e7b4f8c13",
    "opencode": "ses_dcf379937ffe5xa0NrKr8AzjOm",
    "command": "own-session-1",
}


def test_the_table_is_the_desk_files_set_of_kinds() -> None:
    assert tuple(KINDS) == AGENT_KINDS == tuple(SAMPLES)


@pytest.mark.parametrize("kind", AGENT_KINDS)
def test_each_line_names_a_working_adapter(kind: str) -> None:
    adapter = adapter_for(kind)
    assert isinstance(adapter, AgentAdapter) and adapter.kind == kind
    assert bool(KINDS[kind].install) == (kind != "command")  # doctor's install hint


@pytest.mark.parametrize("kind", AGENT_KINDS)
def test_the_session_hook_takes_every_kinds_ids_and_each_kind_its_own(kind: str) -> None:
    sample = SAMPLES[kind]
    assert session_id_problem(kind, sample) is None
    assert any_problem(ANY_KIND, sample) is None  # the hook does not know the kind
    problem = session_id_problem(kind, "--dangerously-skip-permissions")
    assert problem is not None and f"the {kind} CLI prints: expected" in problem


def _names_a_cli(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"line {node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in CLIS
    ]


def test_no_module_outside_the_adapters_names_an_agent_cli() -> None:
    found = {
        rel: hits
        for path in sorted(SRC.rglob("*.py"))
        if not (rel := path.relative_to(SRC).as_posix()).startswith("adapters/agents/")
        and rel not in MAY_NAME_A_CLI
        and (hits := _names_a_cli(path))
    }
    assert found == {}, "ask deskd.adapters.agents.KINDS or the adapter instead"


def test_the_check_would_catch_a_module_that_names_one(tmp_path: Path) -> None:
    module = tmp_path / "launch.py"
    module.write_text('def f(kind):\n    return kind == "gemini"\n', encoding="utf-8")
    assert _names_a_cli(module) == ["line 2: 'gemini'"]
