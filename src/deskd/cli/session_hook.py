"""``deskd session-hook print|install``: wire the session hook into Claude Code sessions
started by hand (sessions deskd launches get the same settings per run, ``--settings FILE``);
``deskd relay``: serve this host's session-hook calls for a PostgreSQL desk. (``deskd hook``
is another thing: wake hooks.)"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from deskd.adapters.agents.claude import desk_env, hook_executable, run_settings
from deskd.adapters.agents.claude import install as do_install
from deskd.cli.common import Command, Group, acting, desk_context
from deskd.cli.output import emit
from deskd.core.timeparse import from_ms
from deskd.errors import MissingRole
from deskd.relay import server
from deskd.schedule.service import require_url_in_env_file


@click.group("session-hook", cls=Group)
def session_hook() -> None:
    """The Claude Code settings that run deskd-session-hook, for sessions started by hand.

    Examples:
      deskd session-hook print --role researcher
      deskd session-hook install --project ~/src/myapp --role researcher
    """


def _settings_for(role: str | None) -> tuple[dict[str, Any], str]:
    """The settings for ``role`` at this desk, and the desk's now as a UTC stamp."""
    with desk_context() as ctx:
        name = acting(ctx, "--role", role) if role or ctx.settings.role else None
        db: str | None = ctx.settings.database
        if ctx.settings.shared_database:
            # Projects commit .claude/settings.json: a URL's password stays in the desk's
            # .env (0600), where deskd and the hook read it given DESKD_HOME.
            require_url_in_env_file(ctx.settings.home, ctx.settings.database, what="the hook")
            db = None
        env = desk_env(home=ctx.settings.home, db=db, role=name)
        stamp = from_ms(ctx.now).strftime("%Y%m%dT%H%M%SZ")
    return run_settings(hook_command=hook_executable(), env=env), stamp


@session_hook.command("print")
@click.option("--role", help="The role these sessions act as (sets DESKD_ROLE).")
def print_(role: str | None, as_json: bool) -> None:
    """Print the settings JSON (hooks and env) to merge into .claude/settings.json.

    The hook is named by its absolute path in this environment, and DESKD_HOME and DESKD_DB
    are set explicitly, so the sessions find this desk from any folder. A PostgreSQL URL is
    left out (it holds a password; projects commit this file): it must be in the desk's .env
    (chmod 600), where deskd and the hook read it. Without --role
    (and without DESKD_ROLE) the env block names no role: export DESKD_ROLE before starting
    claude, or the hook does nothing.

    Examples:
      deskd session-hook print --role researcher
      deskd session-hook print --role researcher --json > /tmp/deskd-settings.json
      claude --settings /tmp/deskd-settings.json
    """
    settings, _ = _settings_for(role)
    click.echo(json.dumps(settings, indent=2))
    if not as_json:
        click.echo(
            "# merge into PROJECT/.claude/settings.json, pass with `claude --settings FILE`, "
            "or run: deskd session-hook install --project PROJECT --role ROLE",
            err=True,
        )


@session_hook.command()
@click.option(
    "--project",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The project folder whose .claude/settings.json gets the hooks.",
)
@click.option("--role", help="The role sessions in that project act as.")
def install(project: Path, role: str | None, as_json: bool) -> None:
    """Merge the session hook into PROJECT/.claude/settings.json (created if missing).

    Your other settings and hooks are kept; deskd's own earlier entries are replaced, so a
    second install adds nothing. The old file is copied to settings.json.bak-<UTC time>
    first. Every Claude Code session in that project then acts as ROLE at this desk.

    Examples:
      deskd session-hook install --project ~/src/myapp --role researcher
      deskd session-hook install --project . --role writer --json
    """
    if not role and not os.environ.get("DESKD_ROLE"):
        raise MissingRole("--role")
    settings, stamp = _settings_for(role)
    done = do_install(project.absolute(), settings, stamp=stamp)
    data = {
        "path": str(done.path),
        "backup": str(done.backup) if done.backup else None,
        "created": done.created,
        "changed": done.changed,
        "role": settings.get("env", {}).get("DESKD_ROLE"),
    }
    if not done.changed:
        human = f"{done.path}: the session hook is already installed; nothing changed"
    elif done.created:
        human = f"wrote {done.path} with the session hook for role {data['role']}"
    else:
        human = f"merged the session hook into {done.path} (backup: {done.backup})"
    emit(data, as_json, human)


@click.command(cls=Command, json=False)
@click.option(
    "--connections",
    type=click.IntRange(1, 64),
    default=server.POOL_SIZE,
    show_default=True,
    help="Server connections the relay opens and keeps (one a writer; each writes one hook call "
    "at a time, in its own transaction).",
)
@click.option(
    "--idle-minutes",
    type=click.IntRange(0, 24 * 60),
    default=int(server.IDLE_S // 60),
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

    from deskd.errors import RelayNeedsPostgres
    from deskd.paths import db_file_str, home_str
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
