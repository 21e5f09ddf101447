"""``deskd pages``: pages to people and their per-channel results."""

from __future__ import annotations

import click

from deskd.cli.common import desk_context, emit, json_option, table


@click.command()
@click.option("--open", "open_only", is_flag=True, help="Only pages not yet resolved.")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 10000))
@json_option
def pages(open_only: bool, limit: int, as_json: bool) -> None:
    """Pages created when a wake climbed to the notify rung, newest first.

    With no channel configured the page waits here, in the outbox.

    \b
    Examples:
      deskd pages --open
      deskd pages --json
    """
    from deskd.service.pages import pages as list_pages

    with desk_context() as ctx:
        rows = list_pages(ctx, open_only=open_only, limit=limit)

    def human() -> None:
        if not rows:
            click.echo("no pages")
            return
        table(
            [
                (r["id"], r["role"], r["reason"], r["status"], r["created_at"], r["title"])
                for r in rows
            ],
            ["id", "role", "reason", "status", "created", "title"],
        )

    emit(rows, as_json, human)
