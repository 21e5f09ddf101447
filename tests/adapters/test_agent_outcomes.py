"""Every fixture through feed() and outcome(): session ids, landings and failure classes.

The fixtures (copied from the shared agent-CLI fixtures) encode the traps: Claude's API
failures say ``"subtype": "success"`` with ``"is_error": true``; Codex's top-level ``error``
line is only a reconnect warning; Gemini prints one (pretty) JSON document.

It runs past 400 lines: one block per agent CLI, kept together so the four read side by
side.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from deskd.adapters.agents import adapter_for
from deskd.adapters.agents.base import SESSION, TURN, RunOutcome, RunState
from deskd.adapters.agents.codex import parse_reset_at
from deskd.core.usage import Usage

FIXTURES = Path(__file__).parent / "fixtures"
CLAUDE_SID = "3f1c9a7e-5b2d-4c8e-9a61-0d2e7b4f8c13"
GEMINI_SID = "5d7e9f10-2a3b-4c5d-8e9f-0a1b2c3d4e5f"
JUNK = ["", "   ", "Loaded cached credentials.", "{not json", "[1, 2]", '"a string"', "{}\x00"]


def lines(kind: str, name: str) -> list[str]:
    text = (FIXTURES / kind / name).read_text(encoding="utf-8")
    return text.splitlines()


def run(
    kind: str,
    feed: list[str],
    *,
    exit_code: int | None = 0,
    timed_out: bool = False,
    stderr: str = "",
) -> tuple[RunState, RunOutcome, list[set[str]]]:
    adapter = adapter_for(kind)
    state = RunState()
    signals = [adapter.feed(state, line) for line in feed]
    outcome = adapter.outcome(state, exit_code=exit_code, timed_out=timed_out, stderr_tail=stderr)
    return state, outcome, signals


def init_line(sid: str = CLAUDE_SID) -> str:
    return json.dumps({"type": "system", "subtype": "init", "session_id": sid})


# Claude


def test_it_reads_a_whole_claude_stream() -> None:
    state, outcome, signals = run("claude", lines("claude", "stream_success.jsonl"))
    assert signals[0] == {SESSION}  # the init line, before any model call
    assert signals[1] == {TURN}  # the first assistant event
    assert all(not s for s in signals[2:])
    assert outcome == RunOutcome(
        failure_class=None,
        detail="Handled item 7.",
        cost_usd=0.1204,
        session_id=CLAUDE_SID,
        reset_at_ms=None,
        usage=Usage(model="claude-opus-4-8"),  # this result gives no token counts
    )
    assert state.events == 5


def test_it_counts_a_claude_success_result_as_a_turn_even_alone() -> None:
    state, outcome, signals = run("claude", lines("claude", "result_success.json"))
    assert state.landed and signals == [{SESSION, TURN}]
    assert outcome.failure_class is None
    assert outcome.cost_usd == pytest.approx(0.4132)


def test_it_classifies_claude_not_logged_in_as_permanent_though_subtype_says_success() -> None:
    state, outcome, _ = run(
        "claude", [init_line(), *lines("claude", "result_auth_error.json")], exit_code=1
    )
    assert outcome.failure_class == "permanent"
    assert outcome.detail.startswith("not logged in: run `claude /login`")
    assert not state.landed
    assert outcome.session_id == CLAUDE_SID  # from the init line, the first one seen


def test_it_classifies_a_claude_rate_limit_with_the_streams_reset_time() -> None:
    limit = {"status": "rejected", "resetsAt": 1796040000, "rateLimitType": "five_hour"}
    feed = [
        init_line(),
        json.dumps({"type": "rate_limit_event", "rate_limit_info": limit}),
        *lines("claude", "result_api_error_rate_limit.json"),
    ]
    state, outcome, _ = run("claude", feed, exit_code=1)
    assert outcome.failure_class == "usage_limit"
    assert outcome.reset_at_ms == 1796040000 * 1000
    assert "resets 2026-11-30T12:00:00Z" in outcome.detail
    assert not state.landed


def test_it_classifies_a_claude_rate_limit_without_a_reset_time() -> None:
    _, outcome, _ = run("claude", lines("claude", "result_api_error_rate_limit.json"), exit_code=1)
    assert outcome.failure_class == "usage_limit"
    assert outcome.reset_at_ms is None


def test_it_prefers_a_rejected_window_over_an_allowed_one() -> None:
    allowed = {"status": "allowed", "resetsAt": 100}
    rejected = {"status": "rejected", "resetsAt": 200}
    later_allowed = {"status": "allowed", "resetsAt": 300}
    feed = [
        json.dumps({"type": "rate_limit_event", "rate_limit_info": info})
        for info in (allowed, rejected, later_allowed)
    ]
    state, _, _ = run("claude", feed)
    assert state.reset_at_ms == 200_000


def test_it_classifies_claude_max_turns_as_a_task_failure() -> None:
    _, outcome, _ = run("claude", lines("claude", "result_max_turns.json"), exit_code=1)
    assert outcome.failure_class == "task"
    assert outcome.detail == "reached the turn limit (25 turns)"
    assert outcome.cost_usd == pytest.approx(2.91)


@pytest.mark.parametrize(
    ("status", "text", "expected"),
    [
        (529, "API Error: Overloaded", "transient"),
        (500, "API Error: Internal server error", "transient"),
        (403, "API Error: forbidden", "permanent"),
        (404, "API Error: model: claude-nope not found", "permanent"),
        (400, "API Error: Credit balance is too low", "permanent"),
        (None, "Credit balance is too low", "permanent"),
        (None, "API Error: Connection error.", "transient"),
        (None, "Claude AI usage limit reached|1796040000", "usage_limit"),
    ],
)
def test_it_classifies_claude_api_errors(status: int | None, text: str, expected: str) -> None:
    result = {
        "type": "result",
        "subtype": "success",
        "is_error": True,
        "result": text,
        "terminal_reason": "api_error",
        "api_error_status": status,
    }
    _, outcome, _ = run("claude", [json.dumps(result)], exit_code=1)
    assert outcome.failure_class == expected, outcome.detail


def test_it_reads_the_reset_time_of_a_claude_subscription_limit() -> None:
    result = {
        "type": "result",
        "is_error": True,
        "result": "Claude AI usage limit reached|1796040000",
    }
    _, outcome, _ = run("claude", [json.dumps(result)], exit_code=1)
    assert (outcome.failure_class, outcome.reset_at_ms) == ("usage_limit", 1796040000_000)


def test_it_treats_resuming_a_missing_claude_session_as_permanent() -> None:
    result = {
        "type": "result",
        "subtype": "error_during_execution",
        "is_error": True,
        "errors": [f"No conversation found with session ID: {CLAUDE_SID}"],
    }
    _, outcome, _ = run("claude", [json.dumps(result)], exit_code=1)
    assert outcome.failure_class == "permanent"
    assert outcome.detail.startswith("session not found")


def test_it_treats_a_claude_execution_error_as_a_task_failure() -> None:
    result = {"type": "result", "subtype": "error_during_execution", "is_error": True}
    _, outcome, _ = run("claude", [json.dumps(result)], exit_code=1)
    assert outcome.failure_class == "task"


def test_it_does_not_count_a_synthetic_api_error_message_as_a_turn() -> None:
    synthetic = {
        "type": "assistant",
        "session_id": CLAUDE_SID,
        "message": {
            "model": "<synthetic>",
            "content": [{"type": "text", "text": "API Error: 529"}],
        },
    }
    flagged = {"type": "assistant", "error": "rate_limit", "message": {"content": []}}
    state, outcome, signals = run(
        "claude", [init_line(), json.dumps(synthetic), json.dumps(flagged)], exit_code=1
    )
    assert not state.landed
    assert signals[1:] == [set(), set()]
    assert outcome.failure_class == "usage_limit"  # from the last error, no result printed


# Claude: a missing final result (some versions print none when a Stop hook is configured).


def test_it_counts_a_turn_and_a_clean_exit_without_a_result_as_success() -> None:
    stream = lines("claude", "stream_success.jsonl")[:3]
    state, outcome, _ = run("claude", stream, exit_code=0)
    assert state.landed and state.result is None
    assert outcome.failure_class is None
    assert outcome.session_id == CLAUDE_SID


def test_it_calls_an_init_line_alone_a_transient_failure_not_a_landing() -> None:
    state, outcome, signals = run("claude", [init_line()], exit_code=0)
    assert signals == [{SESSION}] and not state.landed
    assert outcome.failure_class == "transient"
    assert "no model turn" in outcome.detail


def test_it_calls_a_silent_clean_exit_a_transient_no_result() -> None:
    _, outcome, _ = run("claude", [], exit_code=0)
    assert outcome.failure_class == "transient"
    assert outcome.detail.startswith("no result")


def test_it_reads_stderr_when_nothing_structured_was_printed() -> None:
    stderr = "Invalid API key · Please run /login\n"
    _, outcome, _ = run("claude", [], exit_code=1, stderr=stderr)
    assert outcome.failure_class == "permanent"
    _, outcome, _ = run("claude", [], exit_code=1, stderr="error: unknown option '--bogus'")
    assert (outcome.failure_class, outcome.detail.split(":")[0]) == ("permanent", "bad arguments")


def test_it_does_not_trust_the_exit_code_over_structured_output() -> None:
    # A success result with a non-zero exit (a failing Stop hook, say) is still a success,
    _, outcome, _ = run("claude", lines("claude", "result_success.json"), exit_code=1)
    assert outcome.failure_class is None
    # and an error result with exit 0 is still the error.
    _, outcome, _ = run("claude", lines("claude", "result_auth_error.json"), exit_code=0)
    assert outcome.failure_class == "permanent"


def test_it_calls_a_crash_after_a_turn_transient() -> None:
    stream = lines("claude", "stream_success.jsonl")[:2]
    _, outcome, _ = run("claude", stream, exit_code=137, stderr="Killed")
    assert outcome.failure_class == "transient"
    assert "after a model turn" in outcome.detail


@pytest.mark.parametrize("kind", ["claude", "codex", "gemini", "opencode", "command"])
def test_a_timeout_is_transient_whatever_was_seen(kind: str) -> None:
    _, outcome, _ = run(kind, [], exit_code=None, timed_out=True)
    assert outcome.failure_class == "transient"
    assert outcome.detail.startswith("timed out")


# Codex


def test_it_reads_a_codex_run() -> None:
    state, outcome, signals = run("codex", lines("codex", "exec_success.jsonl"))
    assert signals[0] == {SESSION}
    assert signals[1] == set()  # turn.started: no model output yet
    assert signals[2] == {TURN}  # the first item the model produced
    assert outcome.failure_class is None
    assert outcome.session_id == "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
    assert state.landed


def test_a_codex_error_line_alone_is_not_a_failure() -> None:
    state, outcome, _ = run("codex", lines("codex", "exec_reconnect_then_ok.jsonl"))
    assert outcome.failure_class is None
    assert state.errors == ["Reconnecting... 1/5 (stream disconnected before completion)"]


def test_it_classifies_a_codex_usage_limit_with_its_reset_time() -> None:
    state, outcome, _ = run("codex", lines("codex", "exec_usage_limit.jsonl"), exit_code=1)
    assert outcome.failure_class == "usage_limit"
    expected = int(datetime(2026, 12, 1, 3, 5).astimezone().timestamp() * 1000)
    assert outcome.reset_at_ms == expected
    assert not state.landed


def test_it_parses_codex_reset_times_or_leaves_them_unknown() -> None:
    assert parse_reset_at("try again at Dec 1st, 2026 3:05 AM.") is not None
    assert parse_reset_at("try again at Jan 22nd, 2027 11:59 PM") is not None
    assert parse_reset_at("try again in 2 hours 5 minutes.") is None
    assert parse_reset_at("try again at Foo 1st, 2026 3:05 AM.") is None


def test_a_codex_reconnect_warning_then_death_is_transient() -> None:
    feed = lines("codex", "exec_reconnect_then_ok.jsonl")[:3]
    _, outcome, _ = run("codex", feed, exit_code=1)
    assert outcome.failure_class == "transient"


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("unexpected status 401 Unauthorized: Missing bearer authentication", "permanent"),
        ("The 'o3-mini' model is not supported when using Codex", "permanent"),
        ("stream disconnected before completion: error sending request", "transient"),
        ("something nobody documented", "transient"),
    ],
)
def test_it_classifies_codex_turn_failures(message: str, expected: str) -> None:
    feed = [json.dumps({"type": "turn.failed", "error": {"message": message}})]
    _, outcome, _ = run("codex", feed, exit_code=1)
    assert outcome.failure_class == expected


# Gemini


def test_it_reads_a_gemini_result_printed_on_one_line_or_many() -> None:
    doc = json.loads((FIXTURES / "gemini" / "result_ok.json").read_text())
    for feed in (
        [json.dumps(doc)],
        ["Loaded cached credentials.", *json.dumps(doc, indent=2).splitlines()],
    ):
        state, outcome, signals = run("gemini", feed)
        assert outcome.failure_class is None
        assert outcome.session_id == "5d7e9f10-2a3b-4c5d-8e9f-0a1b2c3d4e5f"
        assert state.landed
        assert {SESSION, TURN} in signals


def test_it_classifies_a_gemini_quota_error_as_a_usage_limit() -> None:
    state, outcome, _ = run("gemini", lines("gemini", "result_quota_error.json"), exit_code=1)
    assert outcome.failure_class == "usage_limit"
    assert not state.landed


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (41, "permanent"),
        (42, "permanent"),
        (52, "permanent"),
        (53, "task"),
        (54, "task"),
        (130, "transient"),
    ],
)
def test_it_maps_geminis_documented_exit_codes(code: int, expected: str) -> None:
    _, outcome, _ = run("gemini", [], exit_code=code)
    assert outcome.failure_class == expected
    assert f"exit {code}" in outcome.detail


def test_it_reads_a_gemini_error_document_on_stderr() -> None:
    error = {
        "session_id": GEMINI_SID,
        "error": {"type": "FatalAuthenticationError", "message": "no auth", "code": 41},
    }
    _, outcome, _ = run("gemini", [], exit_code=41, stderr="warn\n" + json.dumps(error, indent=2))
    assert outcome.failure_class == "permanent"
    assert outcome.session_id == GEMINI_SID


def test_a_gemini_session_id_without_a_response_is_no_landing() -> None:
    state, outcome, _ = run("gemini", [json.dumps({"session_id": "s", "response": ""})])
    assert not state.landed
    assert outcome.failure_class is None  # the run finished, it just said nothing


# OpenCode


def test_it_reads_an_opencode_run() -> None:
    _, outcome, signals = run("opencode", lines("opencode", "run_ok.jsonl"))
    assert signals[0] == {SESSION}  # step_start carries the id; not a turn yet
    assert signals[1] == {TURN}
    assert outcome.failure_class is None
    assert outcome.cost_usd == pytest.approx(0.0121)
    assert outcome.session_id == "ses_7a8b9c0d1e2f"


def test_it_classifies_an_opencode_auth_error_as_permanent() -> None:
    state, outcome, _ = run("opencode", lines("opencode", "run_error.jsonl"), exit_code=0)
    assert outcome.failure_class == "permanent"
    assert "opencode auth login" in outcome.detail
    assert not state.landed


def test_it_classifies_an_opencode_rate_limit() -> None:
    error = {"name": "APIError", "data": {"message": "Too Many Requests", "statusCode": 429}}
    _, outcome, _ = run(
        "opencode", [json.dumps({"type": "error", "sessionID": "s", "error": error})]
    )
    assert outcome.failure_class == "usage_limit"


# Command


@pytest.mark.parametrize(
    ("exit_code", "stderr", "expected"),
    [
        (0, "", None),
        (127, "", "permanent"),
        (1, "HTTP 429 Too Many Requests", "usage_limit"),
        (1, "boom", "transient"),
    ],
)
def test_a_command_is_judged_by_its_exit_code(
    exit_code: int, stderr: str, expected: str | None
) -> None:
    _, outcome, _ = run("command", ["hello"], exit_code=exit_code, stderr=stderr)
    assert outcome.failure_class == expected


def test_a_command_may_report_its_session_id() -> None:
    state, _, signals = run("command", ["starting", json.dumps({"session_id": "abc"})])
    assert state.session_id == "abc" and signals == [set(), {SESSION}]
    assert state.events == 2


# Every adapter


@pytest.mark.parametrize("kind", ["claude", "codex", "gemini", "opencode"])
def test_it_ignores_junk_lines(kind: str) -> None:
    state, outcome, signals = run(kind, JUNK)
    assert signals == [set()] * len(JUNK)
    assert state.session_id is None and not state.landed and state.events == 0
    assert outcome.failure_class == "transient"


def test_it_keeps_the_first_session_id() -> None:
    first, second = CLAUDE_SID, "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
    state, _, signals = run("claude", [init_line(first), init_line(second)])
    assert state.session_id == first
    assert signals == [{SESSION}, set()]


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        ("authentication_failed", "permanent"),
        ("billing_error", "permanent"),
        ("rate_limit", "usage_limit"),
        ("invalid_request", "permanent"),
        ("server_error", "transient"),
        ("unknown", "transient"),
    ],
)
def test_it_classifies_claudes_error_vocabulary_without_a_result(error: str, expected: str) -> None:
    flagged = {"type": "assistant", "error": error, "message": {"content": []}}
    state, outcome, _ = run("claude", [init_line(), json.dumps(flagged)], exit_code=1)
    assert not state.landed
    assert outcome.failure_class == expected, outcome.detail
