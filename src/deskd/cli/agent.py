"""``deskd agent run|command|stop``, ``logs``, ``wait`` and ``diff``: a role's agent — its
launches, its transcript, waiting on it, and its work in its worktree."""

from __future__ import annotations

import shlex
import sys
import time

import click

from deskd.cli.common import ID, Command, Group, desk_context, on_desk
from deskd.cli.output import emit
from deskd.core.timeparse import DURATION_HINT, parse_duration
from deskd.errors import InvalidValue, WaitTimedOut
from deskd.service.engine.launch_command import describe_launch
from deskd.service.engine.launch_control import (
    agent_logs,
    check_state,
    pid_path,
    reached,
    stop_role,
)
from deskd.service.ops.worktrees import role_diff


@click.group(cls=Group)
def agent() -> None:
    """Agent launches: run one planned launch (the tick does this), or show what would run.

    Examples:
      deskd agent command --role researcher --mode spawn
      deskd agent run --attempt 42
    """


@agent.command("run")
@click.option("--attempt", "attempt_id", required=True, type=ID, help="The launch's attempt id.")
def run(attempt_id: int, as_json: bool) -> None:
    """Carry out one planned launch (started detached by `deskd tick --execute`).

    Takes the role lock, claims the launch, runs the agent CLI under its timeout, records
    the session id, landing and outcome on the attempt.

    Examples:
      deskd agent run --attempt 42
    """
    from deskd.service.engine.executor import run_launch

    result = on_desk(run_launch, attempt_id)
    landed = "landed" if result.landed else "did not land"
    detail = f" — {result.detail}" if result.detail else ""
    emit(result.to_json(), as_json, f"attempt {attempt_id}: {result.status}, {landed}{detail}")


@agent.command("command")
@click.option("--role", required=True, help="The role.")
@click.option("--mode", default="spawn", show_default=True, help="spawn or resume.")
@click.option("--session-id", help="For resume: the native session id.")
def command(role: str, mode: str, session_id: str | None, as_json: bool) -> None:
    """Print the argv and environment a launch for ROLE would run, without running it.

    Examples:
      deskd agent command --role researcher --mode spawn
      deskd agent command --role researcher --mode resume --session-id 3f1c… --json
    """
    data = on_desk(describe_launch, role=role, mode=mode, session_id=session_id)

    def human() -> None:
        click.echo(shlex.join(data["argv"]))
        for key, value in data["env"].items():
            click.echo(f"  {key}={value}")
        if data["dropped"]:
            click.echo("  (scrubbed: " + ", ".join(data["dropped"]) + ")")

    emit(data, as_json, human)


@agent.command("stop")
@click.option("--role", required=True, help="The role whose running launch to end.")
def stop(role: str, as_json: bool) -> None:
    """End a role's running launch: its agent CLI and every process it started.

    The attempt records the stop first (launch failed, failure class `stopped`, an event
    `launch.stopped`), then the agent's process group gets SIGTERM, and SIGKILL if it has
    not exited within 3 s. The wake itself stays live: the next tick climbs as usual.

    Examples:
      deskd agent stop --role researcher
      deskd agent stop --role researcher --json
    """
    out = on_desk(stop_role, role, by="operator")
    emit(
        out,
        as_json,
        f"stopped {role}'s launch (attempt {out['attempt_id']}, process group "
        f"{out['pid'] if out['pid'] is not None else '?'}): {out['result']}",
    )


POLL_S = 0.2
"""``logs --follow`` and ``wait`` poll the wall clock here, at the CLI edge (the service reads
the database once per call): ``logs`` until the launch's process is gone, ``wait`` until its
deadline."""


@click.command(cls=Command, json=False)
@click.option("--role", required=True, help="The role whose agent transcript to print.")
@click.option("--attempt", "attempt_id", type=ID, help="Its launch (default: newest).")
@click.option("--follow", is_flag=True, help="Keep printing until that launch's process ends.")
def logs(role: str, attempt_id: int | None, follow: bool) -> None:
    """Print a role's agent transcript (logs/agents/ROLE/ATTEMPT.log): every line the agent
    CLI wrote, stdout then the tail of stderr.

    With --follow, new lines are printed as they arrive until the launch's process ends
    (at once when it already has).

    Examples:
      deskd logs --role researcher
      deskd logs --role researcher --attempt 42
      deskd logs --role researcher --follow
    """
    with desk_context() as ctx:
        number, path = agent_logs(ctx, role, attempt_id)
        running = pid_path(ctx.settings.run_path, number)
    with path.open("r", encoding="utf-8", errors="replace") as log:
        while True:
            # The executor removes the pid file after the process ends and the transcript
            # is complete: a read after it is gone takes all the process wrote.
            ended = not follow or not running.exists()
            sys.stdout.write(log.read())
            sys.stdout.flush()
            if ended:
                return
            time.sleep(POLL_S)


@click.command(cls=Command)
@click.option("--role", required=True, help="The role to wait for.")
@click.option("--until", "state", required=True, help="resting, landed or idle.")
@click.option("--timeout", default="10m", show_default=True, help="Give up after (90s, 5m, 1h).")
def wait(role: str, state: str, timeout: str, as_json: bool) -> None:
    """Wait until a role reaches a state; exit 0 when it does, 1 on timeout.

    \b
    resting  its session ended its turn (presence idle)
    landed   its newest launch took a model turn
    idle     nothing runs for it: no launch planned or running, not online or suspect

    Examples:
      deskd wait --role researcher --until landed --timeout 5m
      deskd tick --execute && deskd wait --role researcher --until idle --timeout 10m
    """
    check_state(state)
    seconds = parse_duration(timeout, what="--timeout")
    if seconds <= 0:
        raise InvalidValue("--timeout", timeout, f"{DURATION_HINT}, above zero")
    start, told = time.monotonic(), False
    while True:
        # A fresh context each round: a pinned DESKD_NOW stays pinned, a real clock moves on.
        check = on_desk(reached, role, state)
        waited = round(time.monotonic() - start, 1)
        if check.reached:
            data = {"role": role, "until": state, "reached": True, "waited_s": waited}
            emit(data, as_json, f"{role}: {state} after {waited}s ({check.detail})")
            return
        if waited >= seconds:
            raise WaitTimedOut(role, state, timeout, check.detail)
        if not told:  # one line on stderr (stdout's JSON stays clean): a wait, not a hang
            told = True
            click.echo(f"deskd: waiting up to {timeout} for {role} to be {state}", err=True)
        time.sleep(min(POLL_S * 5, max(0.05, seconds - waited)))


@click.command(cls=Command)
@click.argument("role")
@click.option("--stat", is_flag=True, help="A summary per file instead of the patch.")
def diff(role: str, stat: bool, as_json: bool) -> None:
    """Show a role's work against the commit its worktree started from: committed and
    uncommitted changes to tracked files, then the untracked files. For a role with
    `worktree = true` (or a branch name) in deskd.toml.

    Examples:
      deskd diff alpha
      deskd diff alpha --stat
      deskd diff alpha --json
    """
    out = on_desk(role_diff, role, stat=stat)

    def human() -> None:
        click.echo(f"{role}: {out['branch']} in {out['worktree']}, against {out['base'][:12]}")
        click.echo(out["text"].rstrip("\n") or "no change to tracked files")
        for path in out["untracked"]:
            click.echo(f"untracked: {path}")

    emit(out, as_json, human)
