"""A session id can never put a flag into an agent CLI's argv (docs/security.md).

A session id is handed back to the agent CLI on the next resume. Every way one enters — `deskd
status set` and `heartbeat` (flag or DESKD_SESSION_ID), the session hook's stdin, an agent's
own output — accepts only the shape that CLI prints; and the adapters pass ids as
`--resume=ID` (or after `--` for Codex) so even a stored bad id is never read as a flag.
The hook, the fake agent CLIs and the resumes run as real processes; the refusals of
`status set` and `heartbeat`, and the argv `agent command` prints, go through the console
script's entry in-process (the fast dispatch, then click), a fresh interpreter being no part
of what they check.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DESK_TOML, Desk, urgent
from console_entry import console

FAKES = Path(__file__).resolve().parents[1] / "fakes"
HOOK = Path(sys.executable).parent / "deskd-session-hook"
FLAGS = {
    "claude": "--dangerously-skip-permissions",
    "codex": "--dangerously-bypass-approvals-and-sandbox",
    "gemini": "--yolo",
    "opencode": "--auto",
    "command": "--dangerously-skip-permissions",
}
# Real ids, as each CLI prints them (tests/adapters/fixtures/real).
REAL = {
    "claude": "d82e5afd-445a-49a1-9750-6eb13f49c974",
    "codex": "01a230c7-e549-78c3-9a2a-8cf1674b6b7e",
    "gemini": "46b38223-1467-4445-9ad8-2f1eba792f23",
    "opencode": "ses_dcf379937ffe5xa0NrKr8AzjOm",
    "command": "own-session-1",
}
# Values that are no flag but still not the CLI's id: Gemini reads "5" as "the 5th session",
# "latest" as the newest; Claude matches a non-UUID against session titles.
WRONG = {
    "claude": ["my title", "ses_dcf379937ffe5xa0NrKr8AzjOm"],
    "codex": ["thread-name"],
    "gemini": ["5", "latest"],
    "opencode": ["d82e5afd-445a-49a1-9750-6eb13f49c974"],
    "command": ["-x", "a b"],
}
KINDS = list(FLAGS)


def kinds_desk(desk: Desk) -> None:
    """alpha runs kind K, for each K, as its own role ``k_<kind>``."""
    roles = "".join(
        f'\n[[roles]]\nname = "k_{k}"\n[roles.agent]\nkind = "{k}"\n'
        + ('command = "/bin/true"\n' if k == "command" else "")
        for k in KINDS
    )
    desk.write_desk(DESK_TOML + roles)


def native_ids(desk: Desk) -> list[str]:
    if not desk.db_path.exists():
        return []
    with desk.db() as conn:
        return [r[0] for r in conn.execute("SELECT native_id FROM sessions")]


@pytest.mark.parametrize("kind", KINDS)
def test_status_set_refuses_a_session_id_shaped_like_a_flag(desk: Desk, kind: str) -> None:
    kinds_desk(desk)
    console(desk, "status")  # the database exists before: "changed nothing" is a comparison
    before = desk.dump()
    for args, env in (
        (["status", "set", "--role", f"k_{kind}", f"--session-id={FLAGS[kind]}"], {}),
        (["heartbeat", "--role", f"k_{kind}", f"--session-id={FLAGS[kind]}"], {}),
        (["status", "set", "--role", f"k_{kind}"], {"DESKD_SESSION_ID": FLAGS[kind]}),
    ):
        done = console(desk, *args, **env)
        assert done.exit_code == 1, done
        (line,) = done.stderr.splitlines()
        assert line.startswith("deskd: invalid --session-id") and FLAGS[kind] in line
        assert "expected" in line  # says what would have been accepted
        assert desk.dump() == before


@pytest.mark.parametrize("kind", KINDS)
def test_status_set_takes_each_clis_real_id_and_refuses_other_shapes(desk: Desk, kind: str) -> None:
    kinds_desk(desk)
    for wrong in WRONG[kind]:
        done = console(desk, "status", "set", "--role", f"k_{kind}", "--session-id", wrong)
        assert done.exit_code == 1, (wrong, done.stderr)
    done = console(desk, "status", "set", "--role", f"k_{kind}", "--session-id", REAL[kind])
    assert done.exit_code == 0, done.stderr
    assert native_ids(desk) == [REAL[kind]]


def test_the_hook_refuses_a_session_id_shaped_like_a_flag(desk: Desk) -> None:
    console(desk, "status")  # the database exists before the hook runs
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(desk.env(role="alpha"))
    for bad in ("--dangerously-skip-permissions", "-p", "a b"):
        payload = {"hook_event_name": "PostToolUse", "session_id": bad, "tool_name": "Bash"}
        done = subprocess.run(
            [str(HOOK)], input=json.dumps(payload), env=env, capture_output=True, text=True
        )
        assert (done.returncode, done.stdout) == (0, "")  # a hook never fails the agent
    env["DESKD_SESSION_ID"] = "--dangerously-skip-permissions"  # and none from the environment
    payload = {"hook_event_name": "PostToolUse", "tool_name": "Bash"}
    subprocess.run([str(HOOK)], input=json.dumps(payload), env=env, text=True, check=True)
    assert native_ids(desk) == []
    log = (desk.home / "logs" / "hook.log").read_text(encoding="utf-8")
    assert log.count("refused: not a session id") == 4


def agent_desk(desk: Desk, kind: str, tmp_path: Path) -> Path:
    """alpha runs the fake ``kind`` CLI; returns the file each launch's argv is written to."""
    argv_file = tmp_path / "argv.jsonl"
    desk.write_desk(
        DESK_TOML + f'\n[agent]\nkind = "{kind}"\ncommand = "{FAKES / f"fake-{kind}"}"\n'
        'retry_wait = "0s"\n'
    )
    desk.monkeypatch.setenv("FAKE_ARGV_FILE", str(argv_file))
    desk.monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    return argv_file


def launched_argvs(argv_file: Path) -> list[list[str]]:
    if not argv_file.exists():
        return []
    return [json.loads(x) for x in argv_file.read_text().splitlines() if x.strip()]


@pytest.mark.parametrize("kind", ["codex", "gemini", "opencode"])
def test_a_flag_the_agent_printed_as_its_session_id_is_not_recorded(
    desk: Desk, kind: str, tmp_path: Path
) -> None:
    agent_desk(desk, kind, tmp_path)
    desk.monkeypatch.setenv("FAKE_SESSION_ID", FLAGS[kind])  # what the fake prints as its id
    urgent(desk)
    (launch,) = desk.json("tick", "--execute", "--wait")["launched"]
    with desk.db() as conn:
        row = conn.execute(
            "SELECT session_id FROM attempts WHERE id = ?", (launch["attempt_id"],)
        ).fetchone()
    assert row[0] is None
    assert FLAGS[kind] not in native_ids(desk)


@pytest.mark.parametrize("kind", ["claude", "codex", "gemini", "opencode"])
def test_a_bad_id_stored_before_ids_were_checked_never_reaches_the_argv(
    desk: Desk, kind: str, tmp_path: Path
) -> None:
    argv_file = agent_desk(desk, kind, tmp_path)
    urgent(desk)
    with desk.db() as conn:  # as an older deskd stored it: resting, resumable
        conn.execute(
            "INSERT INTO sessions (role, native_id, state, started_at, last_heartbeat_at, "
            "heartbeats) VALUES ('alpha', ?, 'resting', ?, ?, 1)",
            (FLAGS[kind], desk.now_ms - 60_000, desk.now_ms - 60_000),
        )
        conn.commit()
    out = desk.json("tick", "--execute", "--wait")
    (launch,) = out["launched"]
    with desk.db() as conn:
        row = conn.execute(
            "SELECT rung, launch_status, failure_class, launch_detail FROM attempts WHERE id = ?",
            (launch["attempt_id"],),
        ).fetchone()
    assert tuple(row)[:3] == ("resume", "failed", "permanent"), tuple(row)
    assert "session id" in row[3] and "refused" in row[3]
    assert launched_argvs(argv_file) == []  # the CLI never ran with it


@pytest.mark.parametrize("kind", ["claude", "codex", "gemini", "opencode"])
def test_a_resume_passes_the_id_where_no_cli_reads_it_as_a_flag(desk: Desk, kind: str) -> None:
    desk.write_desk(DESK_TOML + f'\n[agent]\nkind = "{kind}"\ncommand = "/bin/true"\n')
    out = console(
        desk, "agent", "command", "--role", "alpha", "--mode", "resume",
        "--session-id", REAL[kind], "--json",
    )  # fmt: skip
    assert out.exit_code == 0, out.stderr
    argv = json.loads(out.stdout)["argv"]
    if kind == "codex":  # positionals after "--": the id, then the prompt
        assert argv[argv.index("--") + 1] == REAL[kind]
    else:
        flag = {"claude": "--resume", "gemini": "--resume", "opencode": "--session"}[kind]
        assert f"{flag}={REAL[kind]}" in argv
    assert REAL[kind] not in argv or kind == "codex"
