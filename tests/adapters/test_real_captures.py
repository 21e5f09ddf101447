"""Each adapter reads what the real CLI printed (tests/adapters/fixtures/real, see its README)
and classifies it the way the real-agent tier expects."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from deskd.adapters.agents import adapter_for
from deskd.adapters.agents.base import RunOutcome, RunState

REAL = Path(__file__).resolve().parent / "fixtures" / "real"
STARTED = int(datetime(2026, 12, 1, 10, 14, tzinfo=UTC).timestamp() * 1000)


def replay(kind: str, name: str, *, timed_out: bool = False) -> tuple[RunState, RunOutcome]:
    adapter = adapter_for(kind)
    state = RunState(started_at_ms=STARTED)
    for line in (REAL / f"{name}.out").read_text(encoding="utf-8").splitlines():
        adapter.feed(state, line)
    exit_file = REAL / f"{name}.exit"
    exit_code = None if timed_out else int(exit_file.read_text().strip())
    stderr = (REAL / f"{name}.err").read_text(encoding="utf-8")
    outcome = adapter.outcome(state, exit_code=exit_code, timed_out=timed_out, stderr_tail=stderr)
    return state, outcome


@pytest.mark.parametrize(
    ("kind", "name", "failure", "detail"),
    [
        ("claude", "claude-real1", None, "Done"),
        ("claude", "claude-notloggedin", "permanent", "not logged in: run `claude /login`"),
        ("claude", "claude-401", "permanent", "not logged in"),
        ("claude", "claude-429", "usage_limit", "usage limit"),
        ("claude", "claude-529", "transient", "(529)"),
        ("codex", "codex-401", "permanent", "not logged in: run `codex login`"),
        ("codex", "codex-429", "usage_limit", "usage limit"),
        ("codex", "codex-503", "transient", "503"),
        ("codex", "codex-untrusted", "permanent", "untrusted folder"),
        ("gemini", "gemini-401", "permanent", "not logged in"),
        ("gemini", "gemini-429", "usage_limit", "usage limit"),
        ("gemini", "gemini-503", "transient", "overloaded"),
        ("gemini", "gemini-untrusted", "permanent", "GEMINI_CLI_TRUST_WORKSPACE=true"),
        ("gemini", "gemini-text", None, "deskd-standin-answer"),
        ("opencode", "opencode-401", "permanent", "not logged in: run `opencode auth login`"),
    ],
)
def test_real_output_is_classified(kind: str, name: str, failure: str | None, detail: str) -> None:
    state, outcome = replay(kind, name)
    assert outcome.failure_class == failure, outcome
    assert detail in outcome.detail, outcome.detail
    assert "\x1b" not in outcome.detail
    assert state.landed is (failure is None)
    if not name.endswith("untrusted"):  # refused before any session
        assert outcome.session_id  # every real CLI names its session, even when the call failed


def test_codex_gives_only_the_time_of_day_of_its_reset() -> None:
    # "try again at 12:14 PM", read in the machine's local time, after the run started.
    _state, outcome = replay("codex", "codex-429")
    assert outcome.reset_at_ms is not None
    assert STARTED < outcome.reset_at_ms <= STARTED + 24 * 3600_000
    stamp = datetime.fromtimestamp(outcome.reset_at_ms / 1000).astimezone()
    assert (stamp.hour, stamp.minute) == (12, 14)


def test_gemini_says_how_long_until_its_quota_resets() -> None:
    _state, outcome = replay("gemini", "gemini-429")
    assert outcome.reset_at_ms == STARTED + 3593_000


def test_claude_with_an_api_key_gives_no_reset_time() -> None:
    _state, outcome = replay("claude", "claude-429")
    assert outcome.reset_at_ms is None  # the executor then holds the role for an hour


def test_codex_with_nothing_listening_only_ends_by_timeout() -> None:
    state, outcome = replay("codex", "codex-nokey", timed_out=True)
    assert (outcome.failure_class, outcome.detail) == (
        "transient",
        "timed out before any model turn",
    )
    assert state.errors and "Reconnecting" in state.errors[0]
