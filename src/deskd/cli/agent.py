"""``deskd agent run|command``: the executor of one launch, and what it would run."""

from __future__ import annotations

import click

from deskd.cli.common import ID, emit, json_option, on_desk


@click.group()
def agent() -> None:
    """Agent launches: run one planned launch (the tick does this), or show what would run.

    \b
    Examples:
      deskd agent command --role researcher --mode spawn
      deskd agent run --attempt 42
    """


@agent.command("run")
@click.option("--attempt", "attempt_id", required=True, type=ID, help="The launch's attempt id.")
@json_option
def run(attempt_id: int, as_json: bool) -> None:
    """Carry out one planned launch (started detached by `deskd tick --execute`).

    Takes the role lock, claims the launch, runs the agent CLI under its timeout, records
    the session id, landing and outcome on the attempt.

    \b
    Examples:
      deskd agent run --attempt 42
    """
    from deskd.service.engine.executor import run_launch

    result = on_desk(run_launch, attempt_id)
    data = result.to_json()
    landed = "landed" if result.landed else "did not land"
    detail = f" — {result.detail}" if result.detail else ""
    emit(data, as_json, f"attempt {attempt_id}: {result.status}, {landed}{detail}")


@agent.command("command")
@click.option("--role", required=True, help="The role.")
@click.option("--mode", default="spawn", show_default=True, help="spawn or resume.")
@click.option("--session-id", default=None, help="For resume: the native session id.")
@json_option
def command(role: str, mode: str, session_id: str | None, as_json: bool) -> None:
    """Print the argv and environment a launch for ROLE would run, without running it.

    \b
    Examples:
      deskd agent command --role researcher --mode spawn
      deskd agent command --role researcher --mode resume --session-id 3f1c… --json
    """
    from deskd.service.engine.launch_command import describe_launch

    data = on_desk(describe_launch, role=role, mode=mode, session_id=session_id)

    def human() -> None:
        import shlex

        click.echo(" ".join(shlex.quote(a) for a in data["argv"]))
        for key, value in data["env"].items():
            click.echo(f"  {key}={value}")
        if data["dropped"]:
            click.echo("  (scrubbed: " + ", ".join(data["dropped"]) + ")")

    emit(data, as_json, human)


@agent.command("stop")
@click.option("--role", required=True, help="The role whose running launch to end.")
@json_option
def stop(role: str, as_json: bool) -> None:
    """End a role's running launch: its agent CLI and every process it started.

    The attempt records the stop first (launch failed, failure class `stopped`, an event
    `launch.stopped`), then the agent's process group gets SIGTERM, and SIGKILL if it has
    not exited within 3 s. The wake itself stays live: the next tick climbs as usual.

    \b
    Examples:
      deskd agent stop --role researcher
      deskd agent stop --role researcher --json
    """
    from deskd.service.engine.launch_control import stop_role

    out = on_desk(stop_role, role, by="operator")
    emit(
        out,
        as_json,
        f"stopped {role}'s launch (attempt {out['attempt_id']}, process group "
        f"{out['pid'] if out['pid'] is not None else '?'}): {out['result']}",
    )
