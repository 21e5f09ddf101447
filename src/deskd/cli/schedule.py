"""``deskd cron-line`` and ``deskd timer``: schedule the tick with absolute paths to this
environment's deskd (lessons 32, 47), and say whether it ticks this desk and how it last ran
(``timer status``, ``cron-line --check``). Nothing here runs crontab or systemctl."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from deskd.cli.common import Command, Group
from deskd.cli.options import params
from deskd.cli.output import emit

if TYPE_CHECKING:
    from deskd.schedule.service import Target, Unit
    from deskd.schedule.status import Schedule


@click.command("cron-line", cls=Command)
@click.option(
    "--execute",
    is_flag=True,
    help="Add DESKD_WAKE_EXECUTE=1: ticks record and launch (default: a dry run).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Instead: is a line installed, for this desk and database, and how did it last run?",
)
@click.pass_context
def cron_line(ctx: click.Context, execute: bool, check: bool, as_json: bool) -> None:
    """Print the crontab line that ticks this desk every minute.

    The desk is DESKD_HOME (default: this folder), made absolute; it must hold a desk file.
    The line runs the driver script shipped in the package, with DESKD_BIN set to the
    folder of this environment's deskd, so cron's bare PATH cannot pick another Python.
    Start without --execute: the ticks are dry runs that log what they would do in
    logs/tick.log. The comment lines are valid crontab lines too.

    Examples:
      deskd cron-line                   # dry run first; paste it with `crontab -e`
      deskd cron-line --execute         # once logs/tick.log looks right
      (crontab -l; deskd cron-line) | crontab -
      deskd cron-line --json
      deskd cron-line --check           # installed? this desk? last run and exit code
    """
    if check:
        from deskd.schedule.status import cron_lines

        none = "no crontab line runs the deskd driver (`deskd cron-line`)"
        return report(ctx, cron_lines, none, as_json)
    from deskd.schedule.service import cron_line as render
    from deskd.schedule.service import desk_target

    rendered = render(desk_target(os.environ, execute=execute))

    def human() -> None:
        for comment in rendered.comments:
            click.echo(comment)
        click.echo(rendered.line)

    emit(rendered.to_json(), as_json, human)


@click.group(cls=Group)
def timer() -> None:
    """The systemd timer that ticks this desk every minute (the alternative to cron).

    `install` writes deskd-tick.service and deskd-tick.timer with absolute paths to this
    environment's deskd and the desk folder (DESKD_HOME, default: this folder); `print`
    shows them. deskd never runs systemctl: it prints the commands to enable the timer.

    Examples:
      deskd timer print --user
      deskd timer install --user --dry-run
      deskd timer install --user
    """


_options = params(
    click.option(
        "--execute", is_flag=True, help="ExecStart runs `deskd tick --execute` (default: dry runs)."
    ),
    click.option(
        "--user",
        "user",
        is_flag=True,
        help="A user timer in ~/.config/systemd/user (default: /etc/systemd/system).",
    ),
)


@timer.command("install")
@_options
@click.option("--dry-run", is_flag=True, help="Print the units and where they would go.")
def timer_install(user: bool, execute: bool, dry_run: bool, as_json: bool) -> None:
    """Write deskd-tick.service and deskd-tick.timer for this desk.

    With --user they go to $XDG_CONFIG_HOME/systemd/user (default ~/.config/systemd/user),
    else to /etc/systemd/system (root needed; the tick then runs as you, the user behind
    sudo). Existing units of the same name are replaced. Afterwards run the systemctl
    commands it prints; deskd does not run them.

    Examples:
      deskd timer install --user --dry-run
      deskd timer install --user
      deskd timer install --user --execute
      sudo env DESKD_HOME=/srv/desk /opt/deskd/.venv/bin/deskd timer install
    """
    from deskd.schedule import service as s

    target, units = _units(user=user, execute=execute)
    commands = s.systemctl_commands(user=user)
    if dry_run:
        files = [{"path": str(u.path), "status": "would write", "text": u.text} for u in units]
    else:
        written = s.install_units(units, sudo_hint=s.sudo_command(target))
        files = [{"path": str(w.path), "status": w.status} for w in written]

    def human() -> None:
        if dry_run:
            _print_units(units)
            click.echo("# dry run: nothing written. To enable after installing:")
            for command in commands:
                click.echo(f"#   {command}")
            return
        for f in files:
            click.echo(f"{f['status']}: {f['path']}")
        mode = "execute" if execute else "dry run (re-install with --execute when ready)"
        click.echo(f"tick mode: {mode}; each tick logs one line to {target.log_file}")
        click.echo("now enable it:")
        for command in commands:
            click.echo(f"  {command}")
        if user:
            click.echo(
                "  loginctl enable-linger $USER   # keep user timers running while logged out"
            )

    emit({"dry_run": dry_run, "files": files, "commands": commands}, as_json, human)


@timer.command("print")
@_options
def timer_print(user: bool, execute: bool, as_json: bool) -> None:
    """Print deskd-tick.service and deskd-tick.timer as `timer install` would write them.

    Examples:
      deskd timer print --user
      deskd timer print --execute > /tmp/units.txt
    """
    _, units = _units(user=user, execute=execute)
    data = {"files": [{"path": str(u.path), "text": u.text} for u in units]}
    emit(data, as_json, lambda: _print_units(units))


def _units(*, user: bool, execute: bool) -> tuple[Target, list[Unit]]:
    """What the tick runs for this desk, and the units that schedule it for ``user``."""
    from deskd.schedule import service as s

    target = s.desk_target(os.environ, execute=execute)
    folder = s.unit_dir(os.environ, user=user)
    return target, s.render_units(
        target, folder=folder, user=user, run_as=s.run_as_user(os.environ)
    )


def _print_units(units: list[Unit]) -> None:
    for unit in units:
        click.echo(f"# ---- {unit.path}")
        click.echo(unit.text, nl=False)


@timer.command("status")
@click.pass_context
def timer_status(ctx: click.Context, as_json: bool) -> None:
    """Show the installed deskd-tick timers: the desk and database each ticks, dry run or
    execute, the timer's state and next run, and when the tick last ran with its exit code
    (from systemd). Exits 1 unless one ticks this desk and database and its last run
    succeeded.

    Examples:
      deskd timer status
      DESKD_HOME=/srv/desk deskd timer status --json
    """
    from deskd.schedule.status import timers

    report(ctx, timers, "no deskd-tick timer installed (`deskd timer install --user`)", as_json)


def report(
    ctx: click.Context,
    find: Callable[[Path, Mapping[str, str]], Sequence[Schedule]],
    none: str,
    as_json: bool,
) -> None:
    """Print what ``find`` finds for this desk; exit 1 unless one of them is healthy."""
    from deskd import paths

    home = paths.home(dict(os.environ)).absolute()
    found = find(home, os.environ)
    ours = [s for s in found if s.this_desk]

    def human() -> None:
        if not found:
            click.echo(none)
        for schedule in found:
            _print(schedule)
        if found and not ours:
            click.secho(f"none of these ticks this desk ({home})", fg="red")

    emit({"desk": str(home), "schedules": [s.to_json() for s in found]}, as_json, human)
    if not any(s.healthy for s in ours):
        ctx.exit(1)


def _print(s: Schedule) -> None:
    from deskd.store.db import redact

    mark = {True: "", False: " ✗"}
    click.secho(s.where, bold=True)
    click.echo(f"  desk      {s.home or '(DESKD_HOME not set)'}{mark[s.this_desk]}")
    db = redact(s.db) if s.db else "the desk's own (DESKD_DB not set)"
    other = "" if s.this_database else " ✗ not the database this shell uses"
    click.echo(f"  database  {db}{other}")
    click.echo(f"  mode      {'execute' if s.execute else 'dry run'}")
    if s.state is not None:
        click.echo(f"  timer     {s.state}")
    if s.last_run is None:
        click.echo("  last run  never (or not recorded)")
    else:
        colour = None if s.exit_code == 0 else "red"
        click.secho(f"  last run  {s.last_run}, exit {s.exit_code}", fg=colour)
