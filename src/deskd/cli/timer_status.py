"""``deskd timer status`` and ``deskd cron-line --check``: is the schedule installed, does it
tick this desk and database, and how did its last run end (like ``systemctl list-timers``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from deskd.cli.common import emit, json_option

if TYPE_CHECKING:
    from deskd.service.ops.schedule_status import Schedule


@click.command("status")
@json_option
@click.pass_context
def timer_status(ctx: click.Context, as_json: bool) -> None:
    """Show the installed deskd-tick timers: the desk and database each ticks, dry run or
    execute, the timer's state and next run, and when the tick last ran with its exit code
    (from systemd). Exits 1 unless one ticks this desk and database and its last run
    succeeded.

    \b
    Examples:
      deskd timer status
      DESKD_HOME=/srv/desk deskd timer status --json
    """
    from deskd.service.ops.schedule_status import timers

    report(ctx, timers, "no deskd-tick timer installed (`deskd timer install --user`)", as_json)


def check_cron_line(ctx: click.Context, *, as_json: bool) -> None:
    """``deskd cron-line --check``: the crontab lines that run the driver, as above."""
    from deskd.service.ops.schedule_status import cron_lines

    report(ctx, cron_lines, "no crontab line runs the deskd driver (`deskd cron-line`)", as_json)


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
