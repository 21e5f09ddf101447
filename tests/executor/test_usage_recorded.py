"""The executor records what the agent CLI reported using on the launch's primary attempt:
tokens by kind, the model and the cost; an API failure's zeros as zeros, a CLI that reports
nothing as NULL (the fakes of tests/fakes print each CLI's documented shapes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import DESK_TOML, Desk, urgent

FAKES = Path(__file__).resolve().parents[1] / "fakes"
USAGE = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "model")


def launched_usage(desk: Desk, kind: str) -> tuple[object, ...]:
    desk.setenv("DESKD_AGENT_CMD", str(FAKES / f"fake-{kind}"))
    desk.write_desk(f'{DESK_TOML}\n[agent]\nkind = "{kind}"\nretry_wait = "0s"\n')
    urgent(desk)
    (launched,) = desk.json("tick", "--execute", "--wait")["launched"]
    with desk.db() as conn:
        row = conn.execute(
            f"SELECT {', '.join(USAGE)}, cost_usd FROM attempts WHERE id = ?",
            (launched["attempt_id"],),
        ).fetchone()
    return tuple(row)


def test_it_records_the_simulated_claude_usage_on_the_attempt(desk: Desk) -> None:
    desk.setenv("DESKD_SIM_USAGE", "1234,567,8901,23")
    assert launched_usage(desk, "claude") == (1234, 567, 8901, 23, "claude-sim-1", 0.0123)
    (row,) = desk.json("usage", "--by", "model")["rows"]
    assert (row["model"], row["launches"], row["tokens"]) == ("claude-sim-1", 1, 10725)


@pytest.mark.sqlite_only
def test_an_api_failure_records_zero_not_unknown(desk: Desk) -> None:
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "not_logged_in")
    assert launched_usage(desk, "claude") == (0, 0, 0, 0, "claude-sim-1", 0.0)


@pytest.mark.sqlite_only
def test_a_cli_that_reports_nothing_leaves_the_figures_empty(desk: Desk) -> None:
    # The fake Codex reports input and output only: no cache figures, no model, no cost.
    assert launched_usage(desk, "codex") == (9120, 311, None, None, None, None)
