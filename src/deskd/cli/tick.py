"""``deskd tick``: one tick of the wake engine (dry-run unless told to execute)."""

from __future__ import annotations

import click

from deskd.cli import agent_commands
from deskd.cli.common import json_option, runs


@click.command()
@click.option("--execute", is_flag=True, help="Record the plan and launch.")
@click.option("--dry-run", is_flag=True, help="Plan and print; write nothing (default).")
@click.option("--wait", is_flag=True, help="Wait for the launches this tick started.")
@click.option(
    "--loop", "loop", default=None, help="Tick every DUR forever (containers without cron)."
)
@json_option
@runs(agent_commands.tick)
def tick() -> None:
    """One tick: fire due wake hooks, plan wakes, and (with --execute) record and launch.

    Dry-run is the default until --execute or DESKD_WAKE_EXECUTE=1: it prints the same
    plan and writes nothing. Overlapping ticks: the second exits 0 at once.

    \b
    Examples:
      deskd tick                 # what would happen now
      deskd tick --execute --json
      DESKD_WAKE_EXECUTE=1 deskd tick
      deskd tick --execute --loop 60s
    """
