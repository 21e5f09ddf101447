"""``deskd doctor``, ``migrate-db`` and ``prune``: the desk's health and upkeep."""

from __future__ import annotations

import click

from deskd.cli.common import Command, desk_context
from deskd.cli.output import emit
from deskd.core.timeparse import duration_text, local_text
from deskd.service.ops.migrate_db import migrate_db as run
from deskd.service.ops.prune import prune as run_prune

MARKS = {"ok": "✓", "warn": "!", "fail": "✗"}


@click.command(cls=Command)
@click.pass_context
def doctor(ctx: click.Context, as_json: bool) -> None:
    """Check the desk folder, desk file, database and each role's agent executable.

    Prints which desk folder, desk file and database this shell resolves (from
    DESKD_HOME, DESKD_DESK, DESKD_DB), then one line per check: ✓ passed, ! warning,
    ✗ failed. Exits 1 when any check failed (warnings do not fail). Works on a broken
    or missing desk file: that check fails and the others still run. The ways in are
    checked too: each [[events]] source's token or secret variable is set, and with
    DESKD_REPLY_IMAP_URL set, the reply mailbox is logged in to and its folder selected.

    Examples:
      deskd doctor
      DESKD_HOME=/srv/desk deskd doctor --json
    """
    from deskd.service.ops.doctor import run_checks

    checks = run_checks()
    failed = [c for c in checks if not c.ok]

    def human() -> None:
        width = max(len(c.name) for c in checks)
        for check in checks:
            line = f"{MARKS[check.level]} {check.name.ljust(width)}  {check.detail}"
            colour = {"ok": None, "warn": "yellow", "fail": "red"}[check.level]
            click.echo(click.style(line, fg=colour) if colour else line)
        if failed:
            click.echo(f"\n{len(failed)} check{'s' if len(failed) != 1 else ''} failed")
        else:
            click.echo("\nall checks passed")

    emit({"checks": [c.as_json() for c in checks]}, as_json, human)
    if failed:
        ctx.exit(1)


@click.command("migrate-db", cls=Command)
@click.option("--from", "source", required=True, help="The desk's SQLite file (data/deskd.db).")
@click.option("--to", "target", required=True, help="An empty PostgreSQL database's URL.")
def migrate_db(source: str, target: str, as_json: bool) -> None:
    """Copy every row of a SQLite desk into an empty PostgreSQL database.

    The target is set up with the current schema, then filled in one transaction (a
    failure leaves it empty). The SQLite file is only read. Afterwards point every host at
    the target (DESKD_DB=postgresql://…) and stop using the file. Refuses a target that
    already holds rows. Exit 1 on a refusal, 3 when a database cannot be used.

    Examples:
      deskd migrate-db --from data/deskd.db --to postgresql://deskd@db.internal/desk
      deskd migrate-db --from data/deskd.db --to "$DESKD_DATABASE_URL" --json
    """
    out = run(source, target)

    def human() -> None:
        click.echo(f"copied {out['total']} rows from {out['from']} into {out['to']}")
        for table, rows in sorted(out["rows"].items()):
            if rows:
                click.echo(f"  {table}: {rows}")

    emit(out, as_json, human)


@click.command(cls=Command)
@click.option(
    "--older-than",
    "older_than",
    required=True,
    metavar="DUR",
    help="Delete closed rows that closed before now minus DUR (e.g. 30d; at least 1d).",
)
@click.option("--force", is_flag=True, help="Allow a DUR shorter than one day.")
@click.option("--dry-run", is_flag=True, help="Count what would go; delete nothing.")
def prune(older_than: str, force: bool, dry_run: bool, as_json: bool) -> None:
    """Delete closed history older than DUR, in one transaction.

    What goes, when it closed before now − DUR: read items, closed attempts (not one a
    remaining row still references), resolved pages, ended sessions (not a role's current
    one), ended pauses, finished hooks (done, cancelled, disabled) and events. What never
    goes: unread items, pending attempts, open pages, working or resting sessions, live
    pauses, active hooks. The worktree of a role that left the desk (deskd.toml) goes when it
    holds no uncommitted or untracked file and no launch of it runs; its branch stays.
    For the desk's operator only (refused when DESKD_ROLE is set).
    The database file does not shrink; its free pages are reused.

    Examples:
      deskd prune --older-than 30d --dry-run
      deskd prune --older-than 90d
      deskd prune --older-than 30d --json
    """
    with desk_context() as ctx:
        result = run_prune(ctx, older_than=older_than, force=force, dry_run=dry_run)

    def human() -> None:
        verb = "would delete" if dry_run else "deleted"
        when = local_text(result.cutoff, ctx.tz)
        click.echo(
            f"{verb} history closed before {when} (older than {duration_text(result.older_than_s)}):"
        )
        for name, count in result.deleted.items():
            click.echo(f"  {name}: {count}")
        if not result.total:
            click.echo("  nothing to delete")
        for tree in result.worktrees:
            gone = "would remove" if dry_run else "removed"
            click.echo(
                f"  worktree {tree['path']}: "
                + (gone if tree["removed"] else f"kept: {tree['why']}")
            )

    emit(result.to_json(), as_json, human)
