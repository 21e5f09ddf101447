"""``deskd relay``: this host's session-hook relay for a PostgreSQL desk."""

from __future__ import annotations

import click

from deskd.cli.common import Command
from deskd.relay.server import IDLE_S, POOL_SIZE


@click.command(cls=Command, json=False)
@click.option(
    "--connections",
    type=click.IntRange(1, 64),
    default=POOL_SIZE,
    show_default=True,
    help="Server connections the relay opens at most (one a writer; each writes one hook call "
    "at a time, in its own transaction).",
)
@click.option(
    "--idle-minutes",
    type=click.IntRange(0, 24 * 60),
    default=int(IDLE_S // 60),
    show_default=True,
    help="Exit after this long without a hook call (0: never, for a systemd service).",
)
@click.option("--stop", is_flag=True, help="Stop the relay serving this desk folder, and exit.")
def relay(connections: int, idle_minutes: int, stop: bool) -> None:
    """Serve the session-hook calls of this host's agents over run/relay.sock (PostgreSQL only).

    The hook then imports no database driver and opens no connection of its own: the relay
    keeps a few and runs the hook's work on them. An executing tick starts one when agents
    run and none answers; with no hook call for --idle-minutes it exits, and at once when a
    hook of another deskd version calls it (after an upgrade). A hook that finds no relay
    does the work itself. Another relay already serving the desk: exits 0 at once.

    Examples:
      deskd relay                       # in the foreground
      deskd relay --idle-minutes 0      # never idle out (a systemd service)
      deskd relay --stop
    """
    import os

    from deskd.errors import RelayNeedsPostgres
    from deskd.paths import db_file_str, home_str
    from deskd.relay import server
    from deskd.store.db import is_url

    run = os.path.join(home_str(), "run")
    if stop:
        pid = server.stop(run)
        click.echo(f"stopped the relay (pid {pid})" if pid else "no relay serves this desk")
        return
    if not is_url(db_file_str()):
        raise RelayNeedsPostgres
    idle = float(idle_minutes * 60) if idle_minutes else float("inf")
    raise SystemExit(server.serve(os.environ, size=connections, idle_s=idle))
