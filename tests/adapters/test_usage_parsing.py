"""Each adapter reads the usage its CLI reports (tokens by kind, the model, the cost) from the
output it already reads: the real captures (tests/adapters/fixtures/real) and the documented
shapes (tests/adapters/fixtures/<kind>). What a CLI does not report stays None, never 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskd.adapters.agents import adapter_for
from deskd.adapters.agents.base import RunOutcome, RunState
from deskd.core.usage import Usage

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def read(kind: str, path: str, *, exit_code: int = 0, state: RunState | None = None) -> RunOutcome:
    adapter, state = adapter_for(kind), state or RunState()
    for line in (FIXTURES / path).read_text(encoding="utf-8").splitlines():
        adapter.feed(state, line)
    return adapter.outcome(state, exit_code=exit_code, timed_out=False, stderr_tail="")


@pytest.mark.parametrize(
    ("kind", "path", "usage", "cost"),
    [
        # Claude Code: the result's usage; the model from system/init.
        ("claude", "real/claude-real1.out", Usage(20, 10, 0, 0, "claude-opus-5-5"), 0.00028),
        # An API failure reports zeros: zero, not unknown.
        ("claude", "real/claude-notloggedin.out", Usage(0, 0, 0, 0, "claude-opus-5-5"), 0.0),
        # A result without usage: the tokens are unknown, the cost is known.
        ("claude", "claude/stream_success.jsonl", Usage(model="claude-opus-4-8"), 0.1204),
        # Codex: input_tokens include the cached ones, counted apart; no cache writes, no model.
        ("codex", "codex/exec_success.jsonl", Usage(5024, 311, 4096, None, None), None),
        ("codex", "codex/exec_reconnect_then_ok.jsonl", Usage(2000, 40, 0, None, None), None),
        ("codex", "real/codex-401.out", Usage(), None),
        # Gemini CLI: stats.models; no cost, no cache writes.
        ("gemini", "real/gemini-text.out", Usage(10, 5, 0, None, "gemini-standin"), None),
        ("gemini", "gemini/result_ok.json", Usage(5120, 210, None, None, "gemini-2.5-pro"), None),
        # OpenCode: each step_finish's tokens and cost.
        ("opencode", "opencode/run_ok.jsonl", Usage(3100, 42, 0, 0, None), 0.0121),
        ("opencode", "real/opencode-401.out", Usage(), None),
    ],
)
def test_it_reads_what_each_cli_reports(
    kind: str, path: str, usage: Usage, cost: float | None
) -> None:
    outcome = read(kind, path)
    assert outcome.usage == usage
    assert outcome.cost_usd == pytest.approx(cost)


def test_it_sums_opencode_steps_with_reasoning_as_output() -> None:
    state = RunState()
    adapter = adapter_for("opencode")
    for tokens, cost in [
        ({"input": 100, "output": 7, "reasoning": 3, "cache": {"read": 50, "write": 20}}, 0.5),
        ({"input": 40, "output": 2, "reasoning": 0, "cache": {"read": 150, "write": 0}}, 0.25),
    ]:
        part = {"type": "step-finish", "tokens": tokens, "cost": cost}
        adapter.read(state, {"type": "step_finish", "sessionID": "ses_1", "part": part})
    assert state.usage == Usage(140, 12, 200, 20, None)
    assert state.cost_usd == pytest.approx(0.75)


def test_it_sums_gemini_models_and_names_the_busiest() -> None:
    stats = {
        "models": {
            "gemini-router": {"tokens": {"prompt": 30, "candidates": 2, "total": 32}},
            "gemini-main": {
                "tokens": {"prompt": 900, "cached": 600, "candidates": 40, "thoughts": 10},
            },
        }
    }
    state = RunState()
    adapter_for("gemini").read(state, {"session_id": "s", "response": "ok", "stats": stats})
    assert state.usage == Usage(330, 52, 600, None, "gemini-main")


def test_a_retry_adds_to_what_the_earlier_tries_used() -> None:
    first = read("claude", "real/claude-real1.out")
    again = read(
        "claude",
        "real/claude-real1.out",
        state=RunState(usage=first.usage, cost_usd=first.cost_usd),
    )
    assert again.usage == Usage(40, 20, 0, 0, "claude-opus-5-5")
    assert again.cost_usd == pytest.approx(0.00056)


@pytest.mark.parametrize("bad", ["12", None, True, [1], {"n": 1}])
def test_a_figure_that_is_not_a_number_is_not_reported(bad: object) -> None:
    state = RunState()
    usage = {"input_tokens": bad, "output_tokens": 3, "cached_input_tokens": bad}
    adapter_for("codex").read(state, {"type": "turn.completed", "usage": usage})
    assert state.usage == Usage(None, 3, None, None, None)
