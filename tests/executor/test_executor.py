"""The executor for real: the tick starts `deskd agent run`, which runs a fake agent CLI that
prints what `claude -p` prints and calls the session hooks from its --settings file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DESK_TOML, Desk, urgent

FAKES = Path(__file__).resolve().parents[1] / "fakes"
SID = "6bf9db12-0489-4c3e-909e-3ee91f144014"


@pytest.fixture
def fake(desk: Desk, tmp_path: Path) -> Path:
    """Every launch of this desk runs tests/fakes/fake-claude; FAKE_ARGV_FILE records argv."""
    argv_file = tmp_path / "argv.jsonl"
    desk.setenv("DESKD_AGENT_CMD", str(FAKES / "fake-claude"))
    desk.monkeypatch.setenv("FAKE_ARGV_FILE", str(argv_file))
    return argv_file


def flag_value(argv: list[str], flag: str) -> str:
    """The value of ``--flag=value`` in ``argv`` (the form deskd passes session ids in)."""
    (value,) = [a.split("=", 1)[1] for a in argv if a.startswith(flag + "=")]
    return value


def launches(argv_file: Path) -> list[list[str]]:
    if not argv_file.exists():
        return []
    return [json.loads(line) for line in argv_file.read_text().splitlines() if line.strip()]


def attempt(desk: Desk, attempt_id: int) -> dict[str, object]:
    with desk.db() as conn:
        return dict(conn.execute("SELECT * FROM attempts WHERE id = ?", (attempt_id,)).fetchone())


def test_a_spawn_lands_and_marks_the_prompt_items_seen(desk: Desk, fake: Path) -> None:
    item = urgent(desk)
    out = desk.json("tick", "--execute", "--wait")
    (launched,) = out["launched"]
    row = attempt(desk, launched["attempt_id"])
    assert row["launch_status"] == "finished" and row["landed_at"] is not None
    assert row["session_id"] and row["failure_class"] is None and row["cost_usd"] is not None
    (argv,) = launches(fake)
    assert flag_value(argv, "--session-id") == row["session_id"]
    (ledger,) = desk.json("ledger", "--for", "alpha")
    assert ledger["item_id"] == item and ledger["state"] == "notified"
    (role,) = [r for r in desk.json("roles") if r["role"] == "alpha"]
    assert role["presence"] == "idle" and role["session_id"] == row["session_id"]  # parked


def test_the_next_wake_resumes_the_parked_session(desk: Desk, fake: Path) -> None:
    urgent(desk, title="first")
    first = desk.json("tick", "--execute", "--wait")["launched"][0]["attempt_id"]
    sid = attempt(desk, first)["session_id"]
    desk.ok("inbox", "ack", "--for", "alpha", "--seen")
    desk.advance(minutes=1)
    desk.json("tick", "--execute", "--wait")
    urgent(desk, title="second")
    out = desk.json("tick", "--execute", "--wait")
    assert [(a["rung"], a["session_id"]) for a in out["actions"]] == [("resume", sid)]
    argv = launches(fake)[-1]
    assert flag_value(argv, "--resume") == sid and "second" in argv[argv.index("-p") + 1]


CLASSIFIED = [
    ("not_logged_in", "failed", "permanent"),
    ("usage_limit", "failed", "usage_limit"),
    ("task_failed", "failed", "task"),
    ("no_result", "finished", None),
]


# The classification is the executor reading the agent's output; the backend only stores its
# result, through one statement for every class. So the four classes run on SQLite, and the
# PostgreSQL case below stores the one that writes every column (a usage limit's hold).
@pytest.mark.sqlite_only
@pytest.mark.parametrize(("mode", "status", "failure"), CLASSIFIED)
def test_it_classifies_how_a_launch_ended(
    desk: Desk, fake: Path, mode: str, status: str, failure: str | None
) -> None:
    classified(desk, mode, status, failure)


def test_a_classified_end_is_stored_on_either_backend(desk: Desk, fake: Path, backend: str) -> None:
    if backend == "sqlite":
        pytest.skip("the usage-limit case of test_it_classifies_how_a_launch_ended")
    classified(desk, *CLASSIFIED[1])


def classified(desk: Desk, mode: str, status: str, failure: str | None) -> None:
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", mode)
    urgent(desk)
    attempt_id = desk.json("tick", "--execute", "--wait")["launched"][0]["attempt_id"]
    row = attempt(desk, attempt_id)
    assert (row["launch_status"], row["failure_class"]) == (status, failure)
    if mode == "usage_limit":
        assert row["hold_until"] is not None


def test_a_launch_that_never_lands_climbs_to_a_page(desk: Desk, fake: Path) -> None:
    # Never landing is a transient failure, retried inside the rung: not waiting between
    # tries keeps each tick to the fake's runs (retry waits: test_retry_wait_comes_from_the_desk).
    desk.write_desk(DESK_TOML + '\n[agent]\nretry_wait = "0s"\n')
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "never_lands")
    urgent(desk)
    first = desk.json("tick", "--execute", "--wait")["launched"][0]["attempt_id"]
    row = attempt(desk, first)
    assert row["landed_at"] is None and row["session_id"]
    rungs = []
    for _ in range(12):  # it climbs within three; past notify the ticks have nothing to prove
        desk.advance(minutes=1)
        out = desk.json("tick", "--execute", "--wait")
        rungs += [a["rung"] for a in out["attempts"]]
        if "notify" in rungs:
            break
    assert "notify" in rungs
    assert desk.json("pages")[0]["role"] == "alpha"


def test_a_permanent_failure_climbs_on_the_next_tick(desk: Desk, fake: Path) -> None:
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "not_logged_in")
    urgent(desk)
    desk.json("tick", "--execute", "--wait")
    desk.advance(seconds=30)
    out = desk.json("tick", "--execute", "--wait")
    assert [a["rung"] for a in out["attempts"]] == ["notify"]


# The backend only stores how a launch ended, through the one statement every end goes
# through (test_a_classified_end_is_stored_on_either_backend stores the richest on PostgreSQL);
# the executor's own behaviour below runs on SQLite.
@pytest.mark.sqlite_only
def test_a_hung_agent_is_killed_at_its_timeout(desk: Desk, fake: Path) -> None:
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "hang")
    desk.setenv("DESKD_WAKE_TIMEOUT", "1s")  # the shortest: the test waits it out whole
    urgent(desk)
    attempt_id = desk.json("tick", "--execute", "--wait")["launched"][0]["attempt_id"]
    row = attempt(desk, attempt_id)
    assert row["launch_status"] == "timed_out" and row["failure_class"] == "transient"


# The backend only stores how a launch ended, through the one statement every end goes
# through (test_a_classified_end_is_stored_on_either_backend stores the richest on PostgreSQL);
# the executor's own behaviour below runs on SQLite.
@pytest.mark.sqlite_only
def test_a_missing_executable_is_one_actionable_line(desk: Desk, fake: Path) -> None:
    desk.setenv("DESKD_AGENT_CMD", "no-such-agent-cli")
    urgent(desk)
    attempt_id = desk.json("tick", "--execute", "--wait")["launched"][0]["attempt_id"]
    row = attempt(desk, attempt_id)
    assert row["failure_class"] == "permanent"
    assert "no-such-agent-cli" in str(row["launch_detail"]) and "PATH searched" in str(
        row["launch_detail"]
    )


def test_the_agent_gets_a_scrubbed_environment(desk: Desk, fake: Path, tmp_path: Path) -> None:
    desk.monkeypatch.setenv("CLAUDECODE", "1")
    desk.monkeypatch.setenv("CLAUDE_CODE_CHILD_SESSION", "1")
    desk.setenv("DESKD_SUPERVISOR_ACCESS_CODE", "secret")
    dump = tmp_path / "env.json"
    desk.monkeypatch.setenv("FAKE_ENV_FILE", str(dump))
    urgent(desk)
    desk.json("tick", "--execute", "--wait")
    env = json.loads(dump.read_text())
    assert "CLAUDECODE" not in env and "CLAUDE_CODE_CHILD_SESSION" not in env
    assert not any(k.startswith("DESKD_SUPERVISOR_") for k in env)
    assert env["DESKD_ROLE"] == "alpha" and env["DESKD_WAKE_TOKEN"]
    assert env["DESKD_DB"] == desk.db_target and env["DESKD_NOW"] == desk.now_iso


# The backend only stores how a launch ended, through the one statement every end goes
# through (test_a_classified_end_is_stored_on_either_backend stores the richest on PostgreSQL);
# the executor's own behaviour below runs on SQLite.
@pytest.mark.sqlite_only
def test_the_agent_s_pwd_names_its_workdir_not_deskd_s(
    desk: Desk, fake: Path, tmp_path: Path
) -> None:
    # A child started in the workdir but handed deskd's own $PWD runs, under a CLI that trusts
    # $PWD (OpenCode), in deskd's folder instead of the role's.
    elsewhere = tmp_path / "deskd-started-here"
    elsewhere.mkdir()
    desk.monkeypatch.setenv("PWD", str(elsewhere))
    dump = tmp_path / "env.json"
    desk.monkeypatch.setenv("FAKE_ENV_FILE", str(dump))
    urgent(desk)
    desk.json("tick", "--execute", "--wait")
    workdir = desk.json("agent", "command", "--role", "alpha", "--mode", "spawn")["workdir"]
    assert json.loads(dump.read_text())["PWD"] == workdir != str(elsewhere)


def test_racing_executors_start_one_agent_process(desk: Desk, fake: Path) -> None:
    urgent(desk)
    out = desk.json("tick", "--execute")  # recorded and started once
    attempt_id = out["launched"][0]["attempt_id"]
    env = {**os.environ, **desk.env()}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "deskd", "agent", "run", "--attempt", str(attempt_id)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(3)
    ]
    for p in procs:
        p.communicate(timeout=60)
    import time

    for _ in range(1200):  # the tick's own executor may still be finishing (2 min: a hang)
        if attempt(desk, attempt_id)["launch_status"] != "running":
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the tick's executor was still running after 2 min")
    assert len(launches(fake)) == 1


def test_a_racer_holding_the_role_lock_before_its_claim_does_not_cost_the_launch(
    desk: Desk, fake: Path
) -> None:
    # The racer that took the role lock first has not claimed yet: a loser that skipped the
    # launch as "role busy" left the winner nothing to claim, and no agent ran at all.
    urgent(desk)
    with desk.holding("role-alpha"):
        attempt_id = desk.json("tick", "--execute", "--wait")["launched"][0]["attempt_id"]
        lost = desk.json("agent", "run", "--attempt", str(attempt_id))
        assert (lost["status"], lost["detail"]) == ("refused", "role busy")
        assert attempt(desk, attempt_id)["launch_status"] == "planned"
    assert desk.json("agent", "run", "--attempt", str(attempt_id))["status"] == "finished"
    assert len(launches(fake)) == 1


def test_an_executor_killed_mid_run_is_healed_by_the_next_tick(desk: Desk, fake: Path) -> None:
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "hang")
    urgent(desk)
    out = desk.json("tick", "--execute")
    attempt_id = out["launched"][0]["attempt_id"]
    import signal
    import time

    for _ in range(1200):  # returns once it runs; 2 min is for a real hang
        if attempt(desk, attempt_id)["launch_status"] == "running":
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the executor never recorded its launch as running within 2 min")
    os.killpg(out["launched"][0]["pid"], signal.SIGKILL)
    pid = out["launched"][0]["pid"]
    for _ in range(1200):
        try:  # this test's child (the in-process tick started it): gone once reaped
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                break
        except ChildProcessError:  # already reaped elsewhere: gone once it no longer exists
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
        time.sleep(0.1)
    else:
        raise AssertionError("the killed executor was still alive after 2 min")
    desk.advance(minutes=1)
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "success")  # the relaunch within the rung
    healed = desk.json("tick", "--execute", "--wait")
    assert healed["died"] == [attempt_id]
    row = attempt(desk, attempt_id)
    assert (row["launch_status"], row["launch_detail"]) == ("failed", "executor died")


def test_a_launch_planned_but_never_started_is_restarted(desk: Desk, fake: Path) -> None:
    urgent(desk)
    # Under tests/executor the launcher is real; --wait, so no executor of this first launch
    # is still running when the restarted one is (it would outlive the test).
    desk.json("tick", "--execute", "--wait")
    with desk.db() as conn:  # as if the tick was killed between recording and launching
        conn.execute("UPDATE attempts SET launch_status = 'planned', launched_at = NULL")
    desk.advance(minutes=2)
    out = desk.json("tick", "--execute", "--wait")
    assert out["restarted"] == [1]


def test_a_transient_failure_is_retried_inside_the_rung(desk: Desk, fake: Path) -> None:
    from deskd.service.desk.context import open_context
    from deskd.service.engine.executor import RetryPolicy, run_launch

    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "overloaded_once")
    urgent(desk)
    desk.monkeypatch.setenv("DESKD_NOW", desk.now_iso)
    desk.monkeypatch.setenv("DESKD_AGENT_CMD", str(FAKES / "fake-claude"))
    from deskd.service.engine.tick import run_tick

    ctx = open_context()
    recorded = run_tick(ctx, execute=False)  # plan only, then record by hand below
    assert recorded.plan is not None
    from deskd.service.engine.tick import record_plan

    with ctx.write() as conn:
        ids, _ = record_plan(conn, recorded.plan, now=ctx.now)
    result = run_launch(
        ctx, ids["inbox:alpha"], retry=RetryPolicy(attempts=3, wait_min_s=0, wait_max_s=0)
    )
    ctx.close()
    assert (result.status, result.tries, result.landed) == ("finished", 2, True)
    assert len(launches(fake)) == 2


# The backend only stores how a launch ended, through the one statement every end goes
# through (test_a_classified_end_is_stored_on_either_backend stores the richest on PostgreSQL);
# the executor's own behaviour below runs on SQLite.
@pytest.mark.sqlite_only
def test_a_timeout_is_not_retried_inside_the_rung(desk: Desk, fake: Path) -> None:
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", "hang")
    desk.setenv("DESKD_WAKE_TIMEOUT", "1s")
    urgent(desk)
    out = desk.json("tick", "--execute", "--wait")
    row = attempt(desk, out["launched"][0]["attempt_id"])
    # deskd's own count of the CLI's runs: on a loaded machine the fake may be ended by the
    # 1 s timeout before it has started far enough to record its argv
    assert row["launch_status"] == "timed_out" and row["launch_runs"] == 1
    assert len(launches(fake)) <= 1


def test_eight_concurrent_executing_ticks_start_one_agent_process(desk: Desk, fake: Path) -> None:
    urgent(desk)
    env = {**os.environ, **desk.env()}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "deskd", "tick", "--execute", "--wait", "--json"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(8)
    ]
    outs = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sum(len(o["launched"]) for o in outs) == 1
    assert len(launches(fake)) == 1


def test_agent_command_prints_argv_and_env_without_running(desk: Desk, fake: Path) -> None:
    desk.monkeypatch.setenv("CLAUDECODE", "1")
    data = desk.json("agent", "command", "--role", "alpha", "--mode", "spawn")
    argv = data["argv"]
    assert argv[0] == str(FAKES / "fake-claude") and argv[1] == "-p"
    assert "--output-format" in argv and "--allowedTools" in argv
    assert flag_value(argv, "--session-id")
    assert data["env"]["DESKD_ROLE"] == "alpha" and data["env"]["DESKD_DB"] == desk.db_target
    assert "CLAUDECODE" in data["dropped"] and "CLAUDECODE" not in data["env"]
    resumed = desk.json(
        "agent", "command", "--role", "alpha", "--mode", "resume", "--session-id", SID
    )
    assert flag_value(resumed["argv"], "--resume") == SID
    assert launches(fake) == []
    refused = desk.run("agent", "command", "--role", "alpha", "--mode", "fork")
    assert refused.exit_code == 1 and "spawn or resume" in refused.stderr


def test_a_missing_agent_is_one_line_in_agent_command(desk: Desk) -> None:
    out = desk.run("agent", "command", "--role", "alpha")
    assert out.exit_code == 1
    assert out.stderr.count("\n") == 1 and "PATH searched" in out.stderr


def test_retry_wait_comes_from_the_desk(desk: Desk) -> None:
    """The first wait before a transient retry: 2 s by default, [agent] or the role's own."""
    from deskd.service.desk.context import open_context
    from deskd.service.engine.executor import retry_policy

    desk.write_desk(
        DESK_TOML.replace('title = "Beta"', 'title = "Beta"\nagent = { retry_wait = "0s" }')
        + '\n[agent]\nretry_wait = "5s"\n'
    )
    ctx = open_context()
    try:
        waits = {r: retry_policy(ctx, r) for r in ("alpha", "beta")}
    finally:
        ctx.close()
    assert (waits["alpha"].wait_min_s, waits["alpha"].wait_max_s) == (5, 50)
    assert (waits["beta"].wait_min_s, waits["beta"].wait_max_s) == (0, 0)
    desk.write_desk(DESK_TOML)
    ctx = open_context()
    try:
        assert retry_policy(ctx, "alpha").wait_min_s == 2
    finally:
        ctx.close()
