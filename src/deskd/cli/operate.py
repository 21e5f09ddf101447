"""``deskd logs`` and ``deskd wait``: follow a role's agent from the shell.

Both poll the wall clock here, at the CLI edge (the service reads the database once per
call): ``logs --follow`` until the launch's process is gone, ``wait`` until its deadline.
"""

from __future__ import annotations

import sys
import time

import click

from deskd.cli.common import ID, desk_context, emit, json_option, on_desk
from deskd.errors import InvalidValue, WaitTimedOut

POLL_S = 0.2


@click.command()
@click.option("--role", required=True, help="The role whose agent transcript to print.")
@click.option(
    "--attempt", "attempt_id", type=ID, default=None, help="Its launch (default: newest)."
)
@click.option("--follow", is_flag=True, help="Keep printing until that launch's process ends.")
def logs(role: str, attempt_id: int | None, follow: bool) -> None:
    """Print a role's agent transcript (logs/agents/ROLE/ATTEMPT.log): every line the agent
    CLI wrote, stdout then the tail of stderr.

    With --follow, new lines are printed as they arrive until the launch's process ends
    (at once when it already has).

    \b
    Examples:
      deskd logs --role researcher
      deskd logs --role researcher --attempt 42
      deskd logs --role researcher --follow
    """
    from deskd.service.engine.launch_control import agent_logs, pid_path

    with desk_context() as ctx:
        number, path = agent_logs(ctx, role, attempt_id)
        running = pid_path(ctx.settings.run_path, number)
    with path.open("r", encoding="utf-8", errors="replace") as log:
        while True:
            chunk = log.read()
            if chunk:
                sys.stdout.write(chunk)
                sys.stdout.flush()
            if not follow or not running.exists():
                # The executor removes the pid file after the process ends and the
                # transcript is complete: one more read takes what came meanwhile.
                rest = log.read()
                if rest:
                    sys.stdout.write(rest)
                return
            time.sleep(POLL_S)


@click.command()
@click.option("--role", required=True, help="The role to wait for.")
@click.option("--until", "state", required=True, help="resting, landed or idle.")
@click.option("--timeout", default="10m", show_default=True, help="Give up after (90s, 5m, 1h).")
@json_option
def wait(role: str, state: str, timeout: str, as_json: bool) -> None:
    """Wait until a role reaches a state; exit 0 when it does, 1 on timeout.

    \b
    resting  its session ended its turn (presence idle)
    landed   its newest launch took a model turn
    idle     nothing runs for it: no launch planned or running, not online or suspect

    \b
    Examples:
      deskd wait --role researcher --until landed --timeout 5m
      deskd tick --execute && deskd wait --role researcher --until idle --timeout 10m
    """
    from deskd.core.timeparse import DURATION_HINT, parse_duration
    from deskd.service.engine.waiting import check_state, reached

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
