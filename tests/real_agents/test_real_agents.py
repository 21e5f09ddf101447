"""The real Claude Code, Codex, Gemini CLI and OpenCode, launched by `deskd tick --execute`
against a loopback stand-in for their model API (see tests/real_agents/standins.py).

Each scenario runs for every CLI; where a real CLI behaves differently (OpenCode retries a
usage limit or an overload by itself until deskd's timeout ends it), the test says so.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from tier import (  # noqa: F401
    KINDS,
    Real,
    assert_timed_out_after_a_model_call,
    dump_requests,
    installed_bin,
    real_desk,
    times_out_on_the_failed_call,
    waits_it_out,
)

from conftest import urgent

pytestmark = pytest.mark.real_agents
each_cli = pytest.mark.parametrize("real", KINDS, indirect=True)


def pages(real: Real) -> list[dict[str, Any]]:
    return list(real.desk.json("pages"))


@each_cli
def test_spawn_lands_rests_and_a_new_item_resumes_the_same_session(real: Real) -> None:
    real.api.mode = "tool" if real.kind in ("claude", "codex") else "text"
    urgent(real.desk, title="FIRST-MARK disk 91%")
    first = real.launched(real.tick())
    assert (first["launch_status"], first["failure_class"]) == ("finished", None), first
    assert first["landed_at"] is not None and first["session_id"], first
    session = first["session_id"]
    role = real.role()
    assert (role["presence"], role["session_id"]) == ("idle", session)  # parked, resumable
    if real.api.mode == "tool":
        assert real.api.saw("deskd-probe"), dump_requests(real.api)  # the tool ran
    if real.kind == "claude":  # its PostToolUse hook reached deskd, on the launched session
        with real.desk.db() as conn:
            row = conn.execute("SELECT last_tool FROM sessions WHERE native_id = ?", (session,))
            assert row.fetchone()[0] == "Bash"
        log = real.desk.home / "logs" / "hook.log"
        assert not log.exists() or "not landed" not in log.read_text(encoding="utf-8")

    # 20 s later a second urgent item: the agent was not shown it, so it gets its own wake,
    # resuming the parked session, which carries the earlier turns to the model.
    real.desk.advance(seconds=20)
    real.api.mode = "text"
    urgent(real.desk, title="SECOND-MARK disk 95%")
    out = real.tick()
    assert [(a["rung"], a["session_id"]) for a in out["actions"]] == [("resume", session)]
    second = real.launched(out)
    assert (second["launch_status"], second["landed_at"] is not None) == ("finished", True)
    assert second["session_id"] == session
    resumed = [c for c in real.api.model_calls() if "SECOND-MARK" in c.text]
    assert resumed and all("FIRST-MARK" in c.text for c in resumed), dump_requests(real.api)
    assert pages(real) == []


@each_cli
def test_not_logged_in_is_permanent_and_climbs_at_once(real: Real) -> None:
    real.api.mode = "401"
    urgent(real.desk)
    failed = real.launched(real.tick())
    assert (failed["launch_status"], failed["failure_class"]) == ("failed", "permanent"), failed
    assert failed["launch_detail"].startswith("not logged in"), failed["launch_detail"]
    assert "\x1b" not in failed["launch_detail"]
    assert failed["launch_runs"] == 1  # a permanent failure is never retried in the rung
    real.desk.advance(seconds=30)
    out = real.tick()
    assert [a["rung"] for a in out["attempts"]] == ["notify"]
    assert len(pages(real)) == 1


@each_cli
def test_usage_limit_parks_the_role_until_the_reset_with_one_page(real: Real) -> None:
    real.api.mode = "429"
    # The CLIs see the reset on the real clock; Codex prints only its time of day, which deskd
    # reads as the next such time after the pinned clock. The pinned clock is moved to the
    # real one's time of day, so the reset is two hours on either, whatever the hour now.
    real.desk.advance(seconds=(int(time.time()) - real.desk.now_ms // 1000) % 86400)
    real.api.reset_at = int(time.time()) + 7200
    waits = waits_it_out(real)  # OpenCode waits out a 429 by itself (retry-after)
    urgent(real.desk)
    failed = real.launched(real.tick())
    if waits:
        assert_timed_out_after_a_model_call(real, failed)  # it was refused, then waited
        return
    assert (failed["launch_status"], failed["failure_class"]) == ("failed", "usage_limit"), failed
    assert failed["hold_until"] > real.desk.now_ms, failed
    assert failed["launch_runs"] == 1
    for _ in range(3):
        real.desk.advance(minutes=15)
        out = real.tick()
        assert out["launched"] == []
    assert real.desk.now_ms < failed["hold_until"]
    (page,) = pages(real)
    assert "usage limit" in page["title"], page


@each_cli
def test_overloaded_is_retried_inside_the_rung_in_the_same_session(real: Real) -> None:
    real.api.mode = "529"
    waits = waits_it_out(real)  # OpenCode retries an overload by itself, like a 429
    urgent(real.desk)
    failed = real.launched(real.tick())
    if waits:
        assert_timed_out_after_a_model_call(real, failed)  # it was refused, then retried
        return
    assert (failed["launch_status"], failed["failure_class"]) == ("failed", "transient"), (
        failed["launch_detail"],
        real.modes(failed["id"]),
    )
    assert failed["launch_runs"] == 3, failed
    # Retries resume the session the failed try created: one native session, never three.
    # Gemini CLI stores no session whose model call failed: its retries spawn again.
    again = "spawn" if real.kind == "gemini" else "resume"
    assert real.modes(failed["id"]) == ["spawn", again, again]
    assert failed["session_id"]


@each_cli
def test_a_hung_model_call_times_out(real: Real) -> None:
    real.api.mode = "hang"
    times_out_on_the_failed_call(real)
    urgent(real.desk)
    failed = real.launched(real.tick())
    assert_timed_out_after_a_model_call(real, failed)  # while the model call hung
    assert failed["launch_runs"] == 1  # a hang is not retried inside the rung
    assert failed["launch_detail"] == "timed out before any model turn"


@pytest.mark.parametrize("real", ["gemini", "codex"], indirect=True)
def test_an_untrusted_workdir_is_a_permanent_configuration_failure(
    real: Real, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    if real.kind == "gemini":
        monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE")
    else:
        plain = tmp_path / "not-a-git-tree"
        plain.mkdir()
        real.configure(workdir=plain)
    urgent(real.desk)
    failed = real.launched(real.tick())
    assert (failed["launch_status"], failed["failure_class"]) == ("failed", "permanent"), failed
    assert "trusted" in failed["launch_detail"] and "\x1b" not in failed["launch_detail"]
    assert real.api.model_calls() == []


@each_cli
def test_the_attempt_carries_the_tokens_the_model_api_reported(real: Real) -> None:
    real.api.mode = "tool" if real.kind in ("claude", "codex") else "text"  # two model calls
    urgent(real.desk)
    row = real.launched(real.tick())
    assert row["launch_status"] == "finished", row
    # OpenCode names its session in a side call ("You are a title generator") whose usage it
    # never prints: deskd cannot count what the CLI does not report (docs/contract.md).
    reported = [
        use for seen, use in real.api.reported if "You are a title generator" not in seen.text
    ]
    assert reported, dump_requests(real.api)

    def total(kind: str) -> int:
        return sum(getattr(use, kind) for use in reported)

    recorded = {k: row[f"{k}_tokens"] for k in ("input", "output", "cache_read", "cache_write")}
    assert recorded == {
        "input": total("input"),
        "output": total("output"),
        "cache_read": total("cache_read"),
        # Only the Messages API has a field for cache writes; OpenCode prints 0 without one,
        # Codex and Gemini CLI print nothing.
        "cache_write": {"claude": total("cache_write"), "opencode": 0}.get(real.kind),
    }
    # Claude Code names the model it asks for, Gemini CLI the one the API says answered
    # (``modelVersion``); Codex and OpenCode name none in their JSON.
    asked = real.api.model_calls()[0].body.get("model")
    assert row["model"] == {"claude": asked, "gemini": "gemini-standin"}.get(real.kind)


@pytest.mark.parametrize("real", ["claude"], indirect=True)
def test_a_question_answered_by_link_resumes_the_same_claude_session_with_the_answer(
    real: Real,
) -> None:
    """`deskd ask` from alpha, answered by the page's option link (the confirm page's POST):
    the next tick resumes alpha's Claude session with the answer in the prompt."""
    import sys
    from pathlib import Path

    from fastapi.testclient import TestClient

    from deskd.adapters.private import private_key_file
    from deskd.service.paging.links import KEY_FILE, make_token

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
    from web_helpers import make_app

    real.api.mode = "text"
    urgent(real.desk, title="FIRST-MARK disk 91%")
    session = real.launched(real.tick())["session_id"]
    real.desk.advance(seconds=20)
    asked = real.desk.json("ask", "deploy v2?", "--options", "yes,no", role="alpha")
    key = private_key_file(real.desk.home / "data" / KEY_FILE)
    page_id = asked["help"]["page_ids"][0]
    link = make_token(key, page_id, "a0", expires_ms=real.desk.now_ms + 3600_000)
    with TestClient(make_app(real.desk)) as http:
        assert http.post(f"/act/{link}").status_code == 200
    out = real.tick()
    assert [(a["rung"], a["session_id"]) for a in out["actions"]] == [("resume", session)]
    resumed = real.launched(out)
    assert resumed["landed_at"] is not None and resumed["session_id"] == session
    marker = f"answer to question {asked['id']}: yes"
    assert [c for c in real.api.model_calls() if marker in c.text], dump_requests(real.api)
