"""``deskd prune``: delete closed history older than DUR (never live rows)."""

from __future__ import annotations

import click

from deskd.cli.common import desk_context, emit, json_option


@click.command()
@click.option(
    "--older-than",
    "older_than",
    required=True,
    metavar="DUR",
    help="Delete closed rows that closed before now minus DUR (e.g. 30d; at least 1d).",
)
@click.option("--force", is_flag=True, help="Allow a DUR shorter than one day.")
@click.option("--dry-run", is_flag=True, help="Count what would go; delete nothing.")
@json_option
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

    \b
    Examples:
      deskd prune --older-than 30d --dry-run
      deskd prune --older-than 90d
      deskd prune --older-than 30d --json
    """
    from deskd.core.timeparse import duration_text, local_text
    from deskd.service.ops.prune import prune as run_prune

    with desk_context() as ctx:
        result = run_prune(ctx, older_than=older_than, force=force, dry_run=dry_run)
        tz = ctx.tz

    def human() -> None:
        verb = "would delete" if dry_run else "deleted"
        when = local_text(result.cutoff, tz)
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
