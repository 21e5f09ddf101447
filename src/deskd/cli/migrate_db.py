"""``deskd migrate-db``: copy a desk from SQLite into PostgreSQL."""

from __future__ import annotations

import click

from deskd.cli.common import emit, json_option


@click.command("migrate-db")
@click.option("--from", "source", required=True, help="The desk's SQLite file (data/deskd.db).")
@click.option("--to", "target", required=True, help="An empty PostgreSQL database's URL.")
@json_option
def migrate_db(source: str, target: str, as_json: bool) -> None:
    """Copy every row of a SQLite desk into an empty PostgreSQL database.

    The target is set up with the current schema, then filled in one transaction (a
    failure leaves it empty). The SQLite file is only read. Afterwards point every host at
    the target (DESKD_DB=postgresql://…) and stop using the file. Refuses a target that
    already holds rows. Exit 1 on a refusal, 3 when a database cannot be used.

    \b
    Examples:
      deskd migrate-db --from data/deskd.db --to postgresql://deskd@db.internal/desk
      deskd migrate-db --from data/deskd.db --to "$DESKD_DATABASE_URL" --json
    """
    from deskd.service.ops.migrate_db import migrate_db as run

    out = run(source, target)

    def human() -> None:
        click.echo(f"copied {out['total']} rows from {out['from']} into {out['to']}")
        for table, rows in sorted(out["rows"].items()):
            if rows:
                click.echo(f"  {table}: {rows}")

    emit(out, as_json, human)
