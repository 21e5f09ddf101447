"""Adding an agent CLI is one adapter and one line of ``KINDS`` (docs/architecture.md "Adding an
agent CLI"): a fourth-party kind registered here, and nowhere else, is launched by the real
executor as a real process — its argv, its pre-assigned session id, its per-run hook file,
its output read for the session and the landing — with no other module told about it."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from conftest import DESK_TOML, Desk, urgent
from deskd.adapters.agents import KINDS, Kind, adapter_for
from deskd.adapters.agents.base import AgentAdapter, LaunchSpec, RunOutcome, RunState
from deskd.session_ids import shape

AGENT = """\
#!{python}
import json, os, sys

args = sys.argv[1:]
with open(os.environ["ECHO_LOG"], "a") as log:
    log.write(json.dumps({{"argv": args, "hooks": os.environ.get("ECHO_HOOKS")}}) + "\\n")
session = args[args.index("--id") + 1]
print("echo-cli 1.0 starting", flush=True)
print(json.dumps({{"sid": session}}), flush=True)
print(json.dumps({{"said": "done: " + args[args.index("--say") + 1][:20]}}), flush=True)
"""


class EchoAdapter(AgentAdapter):
    """A CLI deskd has never heard of: ``echo-cli --say PROMPT --id SID [--hooks FILE]``."""

    login_hint = "run `echo-cli login`"

    def new_session_id(self) -> str:
        return "echo-0001"

    def install_hooks(self, run_file: Path | None, env: Mapping[str, str]) -> str:
        if run_file is None:
            return "<hooks file>"
        run_file.parent.mkdir(parents=True, exist_ok=True)
        run_file.write_text(json.dumps({"role": env["DESKD_ROLE"]}), encoding="utf-8")
        return str(run_file)

    def build(self, spec: LaunchSpec) -> list[str]:
        argv = [spec.command, "--say", spec.prompt, "--id", self.checked_id(spec.session_id or "")]
        return argv + (["--hooks", spec.settings_path] if spec.settings_path else [])

    def read(self, state: RunState, event: dict[str, Any]) -> set[str]:
        signals = self.session(state, event.get("sid"))
        if "said" in event:
            state.result = event
            signals |= state.model_turn()
        return signals

    def ended(self, state: RunState, *, exit_code: int | None, stderr_tail: str) -> RunOutcome:
        if state.result is not None and exit_code == 0:
            return self.done(state, None, str(state.result["said"]))
        return self.without_result(state, exit_code=exit_code, stderr_tail=stderr_tail)


@pytest.fixture
def echo_kind(desk: Desk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The ``echo`` kind in the registry, serving alpha; returns the file each run logs to.

    The desk file's closed set of kinds is core/values.py's ``Literal``, which a test cannot
    extend at run time, so the desk names ``command`` and the role's effective kind is
    switched to ``echo`` where the desk hands it out."""
    line = Kind(f"{__name__}.EchoAdapter", shape(r"echo-[0-9]{4}", "echo- and 4 digits"))
    monkeypatch.setitem(KINDS, "echo", line)
    script = tmp_path / "echo-cli"
    script.write_text(AGENT.format(python=sys.executable), encoding="utf-8")
    script.chmod(0o755)
    desk.write_desk(DESK_TOML + f'\n[agent]\nkind = "command"\ncommand = "{script}"\n')
    from deskd.config.desk import Desk as DeskFile

    agent_for = DeskFile.agent_for
    monkeypatch.setattr(
        DeskFile, "agent_for", lambda self, *a, **k: agent_for(self, *a, **k)._replace(kind="echo")
    )
    log = tmp_path / "runs.jsonl"
    monkeypatch.setenv("ECHO_LOG", str(log))
    return log


def test_a_kind_registered_in_one_line_is_launched_by_the_executor(
    desk: Desk, echo_kind: Path
) -> None:
    from deskd.service.desk.context import open_context
    from deskd.service.engine.executor import RetryPolicy, run_launch
    from deskd.service.engine.tick import record_plan, run_tick

    urgent(desk, title="disk 91%")
    desk.monkeypatch.setenv("DESKD_NOW", desk.now_iso)
    ctx = open_context()
    planned = run_tick(ctx, execute=False).plan
    assert planned is not None
    with ctx.write() as conn:
        ids, _ = record_plan(conn, planned, now=ctx.now)
    result = run_launch(ctx, ids["inbox:alpha"], retry=RetryPolicy(1, 0, 0))
    ctx.close()
    assert (result.status, result.landed, result.session_id) == ("finished", True, "echo-0001")
    assert result.detail.startswith("done: ")
    (run,) = [json.loads(line) for line in echo_kind.read_text().splitlines()]
    argv = run["argv"]
    assert argv[0] == "--say" and "disk 91%" in argv[1] and argv[2:4] == ["--id", "echo-0001"]
    hooks = Path(argv[argv.index("--hooks") + 1])
    assert json.loads(hooks.read_text()) == {"role": "alpha"}
    with desk.db() as conn:
        row = conn.execute("SELECT * FROM attempts WHERE id = ?", (ids["inbox:alpha"],)).fetchone()
    assert row["launch_status"] == "finished" and row["landed_at"] is not None
    assert row["session_id"] == "echo-0001"


def test_the_new_kind_is_shown_checked_and_refused_like_the_others(
    desk: Desk, echo_kind: Path
) -> None:
    shown = desk.json("agent", "command", "--role", "alpha", "--mode", "spawn")["argv"]
    assert shown[-4:] == ["--id", "echo-0001", "--hooks", "<hooks file>"]
    assert echo_kind.exists() is False  # nothing ran
    refused = desk.run("status", "set", "--role", "alpha", "--session-id", "ses_abc")
    assert refused.exit_code != 0 and "the echo CLI prints: expected echo- and 4 digits" in (
        refused.stderr
    )
    assert adapter_for("echo").kind == "echo"
