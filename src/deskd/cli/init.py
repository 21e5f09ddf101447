"""``deskd init``: create a working, annotated desk in DESKD_HOME (default: this folder)."""

from __future__ import annotations

import click

from deskd.cli.common import emit, json_option


@click.command()
@click.option(
    "--force",
    is_flag=True,
    help="Rewrite deskd.toml and .env.example if they exist, keeping a timestamped backup of "
    "each (the database is never touched).",
)
@click.option(
    "--new-db",
    is_flag=True,
    help="Only create an empty database where this desk's was lost (never replaces one).",
)
@json_option
def init(force: bool, new_db: bool, as_json: bool) -> None:
    """Create a desk: deskd.toml, .env.example, data/deskd.db, logs/ and run/.

    Refuses when deskd.toml or .env.example already exists, unless --force, which keeps
    each as NAME.bak-<UTC timestamp>, rewrites those two files and leaves the database
    (items, sessions, history) as it is.

    \b
    Examples:
      deskd init                       # in the current folder
      DESKD_HOME=/srv/desk deskd init  # somewhere else
      deskd init --force --json        # rewrite the annotated files
      deskd init --new-db              # the database was lost: start over with an empty one

    A desk that had a database and lost it (deleted, or 0 bytes) is refused by every
    command (exit 3) rather than silently recreated empty; --new-db is the way to start over.
    """
    from deskd.adapters.clock import now_ms
    from deskd.config import load_settings
    from deskd.service.ops.scaffold import init_desk

    settings = load_settings()
    done = init_desk(settings, force=force, new_db=new_db, now=now_ms(settings.now))
    data = {
        "home": str(done.home),
        "desk": str(done.desk),
        "db": str(done.db),
        "written": [str(p) for p in done.written],
        "db_created": done.db_created,
        "backups": [str(p) for p in done.backups],
    }

    def human() -> None:
        click.echo(f"desk folder  {done.home}")
        for path in done.backups:
            click.echo(f"kept         {path} (what --force replaced)")
        for path in done.written:
            click.echo(f"wrote        {path}")
        state = "created" if done.db_created else "kept as it is"
        click.echo(f"database     {done.db} ({state})")
        click.echo("folders      data/ logs/ run/")
        click.echo("")
        click.echo("next: edit deskd.toml (roles, timezone), then run `deskd doctor`")

    emit(data, as_json, human)
