"""A session that is alive but stuck, with the real executor and the simulated agent in its
`hang` mode (it starts its session, then neither heartbeats nor prints while its process
lives), the clock pinned: nudged at half of `stuck_after`, stopped and resumed at
`stuck_after`, one agent process for the role at a time, a person paged only when the resumed
session gets stuck too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_operator_verbs import gone, until

from conftest import DESK_TOML, Desk, urgent

FAKES = Path(__file__).resolve().parents[1] / "fakes"


def attempts(desk: Desk) -> list[dict[str, Any]]:
    with desk.db() as conn:
        return [dict(r) for r in conn.execute("SELECT * FROM attempts ORDER BY id").fetchall()]


def agent_started(desk: Desk, attempt_id: int) -> int:
    """Wait for the executor to start the launch's agent; its process group id."""
    pid_file = desk.home / "run" / "agents" / f"{attempt_id}.pid"
    until(lambda: pid_file.exists() and pid_file.read_text().strip())
    return int(pid_file.read_text())


def test_a_silent_session_is_nudged_then_stopped_and_resumed_then_paged(desk: Desk) -> None:
    desk.write_desk(DESK_TOML.replace("[desk]", '[desk]\nstuck_after = "10m"', 1))
    desk.setenv("DESKD_AGENT_CMD", str(FAKES / "fake-claude"))
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "hang")
    urgent(desk)
    first = desk.json("tick", "--execute")["launched"][0]
    agent = agent_started(desk, first["attempt_id"])
    try:
        desk.advance(minutes=4)
        assert desk.json("tick", "--execute")["stuck"] == []
        desk.advance(minutes=1)  # silent for half of stuck_after: nudged through its hook
        out = desk.json("tick", "--execute")
        assert [s["action"] for s in out["stuck"]] == ["nudged"] and out["launched"] == []
        assert any(
            "no activity for 5m" in i["title"] for i in desk.json("inbox", "list", "--for", "alpha")
        )

        desk.advance(minutes=5)  # silent for stuck_after: stopped, and resumed in the same tick
        out = desk.json("tick", "--execute")
        assert [s["action"] for s in out["stuck"]] == ["stopped"]
        assert gone(agent)  # ended before the tick planned its resume: never two at once
        stopped = attempts(desk)[0]
        assert stopped["launch_status"] == "failed" and stopped["launch_detail"].startswith("stuck")
        (action,) = out["actions"]
        # Relaunched within its rung, resuming the session the stuck launch was serving.
        assert (action["rung"], action["session_id"]) == (stopped["rung"], stopped["session_id"])
        assert "deskd stopped your previous turn" in action["prompt"]
        (second,) = out["launched"]
        second_agent = agent_started(desk, second["attempt_id"])
        assert desk.json("pages") == []
        (shown,) = desk.json("status")["stuck"]
        assert (shown["attempt_id"], shown["recovered"]) == (stopped["id"], False)
        assert "stuck: alpha attempt" in desk.ok("status").stdout
        assert 'deskd_stuck_launches_total{result="stopped",role="alpha"} 1.0' in desk.ok(
            "metrics"
        ).stdout.replace('role="alpha",result="stopped"', 'result="stopped",role="alpha"')

        desk.advance(minutes=10)  # the resumed session gets stuck too: a person is paged
        out = desk.json("tick", "--execute")
        assert [s["action"] for s in out["stuck"]] == ["paged"]
        assert gone(second_agent)
        assert any("stuck again" in p["title"] for p in desk.json("pages"))
        # One agent process at a time: each launch started after the one before it ended.
        runs = [
            a for a in attempts(desk) if a["launched_at"] is not None and a["primary_id"] is None
        ]
        assert all(a["launch_status"] != "skipped" for a in runs)
    finally:
        while desk.run("agent", "stop", "--role", "alpha").exit_code == 0:
            pass
        for launch in [first, *([second] if "second" in locals() else [])]:
            until(lambda launch=launch: gone(launch["pid"]))
