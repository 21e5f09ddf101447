"""Your own agent (`kind = "command"`, docs/own-agent.md) through the real executor: the argv
template's placeholders, the session id a JSON line reports, and landing only through the
session hook — an agent that exits 0 without calling it has not landed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import DESK_TOML, Desk, urgent

AGENT = """\
#!{python}
import json, os, subprocess, sys

mode, role, session, model, prompt = sys.argv[1:6]
with open(os.environ["OWN_AGENT_LOG"], "a") as log:
    log.write(json.dumps({{"argv": sys.argv[1:], "env_role": os.environ.get("DESKD_ROLE"),
                          "token": os.environ.get("DESKD_WAKE_TOKEN")}}) + "\\n")
session = session or "own-session-1"
print(json.dumps({{"session_id": session}}), flush=True)
if os.environ.get("OWN_AGENT_CALLS_HOOK") == "1":
    event = {{"hook_event_name": "Stop", "session_id": session}}
    subprocess.run(["deskd-session-hook"], input=json.dumps(event), text=True, check=True)
"""


@pytest.fixture
def own(desk: Desk, tmp_path: Path) -> Path:
    """alpha, beta, gamma served by a command agent; returns the file it logs each run to."""
    script = tmp_path / "my-agent"
    script.write_text(AGENT.format(python=sys.executable), encoding="utf-8")
    script.chmod(0o755)
    desk.write_desk(
        DESK_TOML
        + f"""
[agent]
kind = "command"
command = "{script}"
args = ["{{mode}}", "{{role}}", "{{session_id}}", "{{model}}", "{{prompt}}"]
model = "local-7b"
"""
    )
    log = tmp_path / "runs.jsonl"
    desk.monkeypatch.setenv("OWN_AGENT_LOG", str(log))
    return log


def runs(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def attempt(desk: Desk, attempt_id: int) -> dict[str, object]:
    with desk.db() as conn:
        return dict(conn.execute("SELECT * FROM attempts WHERE id = ?", (attempt_id,)).fetchone())


def test_it_fills_the_template_and_lands_when_the_agent_calls_the_hook(
    desk: Desk, own: Path
) -> None:
    desk.monkeypatch.setenv("OWN_AGENT_CALLS_HOOK", "1")
    urgent(desk, title="disk 91%")
    first = desk.json("tick", "--execute", "--wait")["launched"][0]["attempt_id"]
    (run,) = runs(own)
    mode, role, session, model, prompt = run["argv"]  # type: ignore[misc]
    assert (mode, role, session, model) == ("spawn", "alpha", "", "local-7b")
    assert "disk 91%" in prompt and run["env_role"] == "alpha" and run["token"]
    row = attempt(desk, first)
    assert row["launch_status"] == "finished" and row["landed_at"] is not None
    assert row["session_id"] == "own-session-1"
    (alpha,) = [r for r in desk.json("roles") if r["role"] == "alpha"]
    assert alpha["presence"] == "idle"  # the hook's Stop parked the session, resumable
    assert alpha["session_id"] == "own-session-1"  # so the next wake resumes it


def test_a_resume_fills_the_session_id_and_mode(desk: Desk, own: Path) -> None:
    out = desk.json("agent", "command", "--role", "beta", "--mode", "resume", "--session-id", "s-9")
    assert out["argv"][1:5] == ["resume", "beta", "s-9", "local-7b"]
    assert out["env"]["DESKD_ROLE"] == "beta" and out["env"]["DESKD_SESSION_ID"] == "s-9"
    assert runs(own) == []  # printed, not run


def test_an_agent_that_never_calls_the_hook_has_not_landed(desk: Desk, own: Path) -> None:
    urgent(desk)
    first = desk.json("tick", "--execute", "--wait")["launched"][0]["attempt_id"]
    row = attempt(desk, first)
    assert row["launch_status"] == "finished" and row["failure_class"] is None
    assert row["landed_at"] is None  # exit 0 is not proof that a model took a turn
    (ledger,) = desk.json("ledger", "--for", "alpha")
    assert ledger["state"] == "queued"


def test_the_executor_log_says_landed_when_the_session_hook_landed_it(
    desk: Desk, own: Path
) -> None:
    desk.monkeypatch.setenv("OWN_AGENT_CALLS_HOOK", "1")
    urgent(desk, title="disk 91%")
    first = desk.json("tick", "--execute", "--wait")["launched"][0]["attempt_id"]
    (listed,) = [w for w in desk.json("wake", "list") if w["id"] == first]
    assert listed["landed_at"]
    log = desk.home / "logs" / "agents" / "alpha" / f"{first}.executor.log"
    assert (
        log.read_text().strip().splitlines()[-1] == f"attempt {first}: finished, landed — exited 0"
    )
    with desk.db() as conn:
        (detail,) = conn.execute("SELECT detail FROM events WHERE kind = 'launch.finished'")
    assert json.loads(detail[0])["landed"] is True
