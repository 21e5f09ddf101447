"""A wake token lands only its own role's attempt, from that attempt's session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hook_helpers import SESSION, HookDesk, both_backends, fixture

from conftest import Desk

pytest_generate_tests = both_backends  # the heartbeat, surfacing and briefing on PostgreSQL too


@pytest.fixture
def hd(desk: Desk) -> HookDesk:
    return HookDesk(desk)


def planned_launch(hd: HookDesk, session: str | None = None) -> tuple[int, str]:
    """An urgent item for alpha and its recorded (not started) spawn: (attempt id, token)."""
    from deskd.service.desk.context import open_context
    from deskd.service.engine.tick import record_plan, run_tick

    hd.enqueue("beta", "seed the roles")
    hd.enqueue("alpha", "disk 91%", priority="urgent")
    hd.desk.monkeypatch.setenv("DESKD_NOW", hd.desk.now_iso)
    ctx = open_context()
    try:
        planned = run_tick(ctx, execute=False)
        assert planned.plan is not None
        with ctx.write() as conn:
            ids, _ = record_plan(conn, planned.plan, now=ctx.now)
            if session is not None:
                conn.execute("UPDATE attempts SET session_id = ?", (session,))
    finally:
        ctx.close()
    attempt_id = ids["inbox:alpha"]
    (row,) = hd.rows("SELECT wake_token FROM attempts WHERE id = ?", attempt_id)
    return attempt_id, str(row["wake_token"])


def landed_at(hd: HookDesk, attempt_id: int) -> object:
    return hd.rows("SELECT landed_at FROM attempts WHERE id = ?", attempt_id)[0]["landed_at"]


def test_another_roles_token_lands_nothing(hd: HookDesk) -> None:
    attempt_id, token = planned_launch(hd)
    assert hd.hook(fixture("post_tool_use"), role="beta", DESKD_WAKE_TOKEN=token).code == 0
    assert landed_at(hd, attempt_id) is None
    assert "issued to role 'alpha', not 'beta'" in hd.log_text()
    hd.hook(fixture("post_tool_use"), role="alpha", DESKD_WAKE_TOKEN=token)
    assert landed_at(hd, attempt_id) == hd.desk.now_ms


def test_a_token_presented_from_another_session_lands_nothing(hd: HookDesk) -> None:
    attempt_id, token = planned_launch(hd, session="the-launched-session")
    hd.hook(fixture("post_tool_use"), DESKD_WAKE_TOKEN=token)  # the fixture's SESSION
    assert landed_at(hd, attempt_id) is None
    assert f"belongs to session the-launched-session, not {SESSION}" in hd.log_text()
    hd.hook(fixture("post_tool_use", session_id="the-launched-session"), DESKD_WAKE_TOKEN=token)
    assert landed_at(hd, attempt_id) == hd.desk.now_ms


REAL = Path(__file__).resolve().parents[1] / "adapters" / "fixtures" / "real"


def real_payload(name: str) -> dict[str, Any]:
    """The stdin the real Claude Code 2.1.332 gave a hook (tests/adapters/fixtures/real)."""
    data: dict[str, Any] = json.loads((REAL / f"claude-hook-{name}.json").read_text("utf-8"))
    return data


def test_the_real_claude_code_hook_sequence_lands_its_own_wake(hd: HookDesk) -> None:
    native = real_payload("post")["session_id"]
    attempt_id, token = planned_launch(hd, session=native)
    for name in ("start", "ups"):  # SessionStart and UserPromptSubmit are not model turns
        assert hd.hook(real_payload(name), DESKD_WAKE_TOKEN=token).code == 0
        assert landed_at(hd, attempt_id) is None
    hd.hook(real_payload("post"), DESKD_WAKE_TOKEN=token)
    assert landed_at(hd, attempt_id) == hd.desk.now_ms
    hd.hook(real_payload("stop"), DESKD_WAKE_TOKEN=token)
    (row,) = hd.sessions()
    assert (row["native_id"], row["state"], row["last_tool"]) == (native, "resting", "Bash")
