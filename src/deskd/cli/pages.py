"""``deskd pages``: pages to people and their per-channel results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from deskd.cli.common import Number, emit_table, json_option, on_desk


@click.command()
@click.option("--open", "open_only", is_flag=True, help="Only pages not yet resolved.")
@click.option("--limit", default=50, show_default=True, type=Number(1, 10000))
@json_option
def pages(open_only: bool, limit: int, as_json: bool) -> None:
    """Pages to people, newest first: status, each channel's result, and why a page is held.

    Statuses: queued (new, or waiting in the outbox when no channel takes it), held (a
    silence, quiet hours, a pause or an ack; until when and why are shown), sent, partial
    (some channels took it), failed (retried with backoff for 24 h), resolved. Channel URLs
    are masked.

    \b
    Examples:
      deskd pages --open
      deskd pages --json
    """
    from deskd.service.paging.pages import pages as list_pages

    rows = on_desk(list_pages, open_only=open_only, limit=limit)
    emit_table(
        rows,
        as_json,
        [
            (r["id"], r["role"], r["kind"], r["status"], _where(r), r["created_at"], r["title"])
            for r in rows
        ],
        ["id", "role", "kind", "status", "channels / why", "created", "title"],
        empty="no pages",
    )


def _where(page: Mapping[str, Any]) -> str:
    # Name the URL (masked when stored): a channel with two URLs would read "ops:sent; ops:sent".
    parts = [
        " ".join(filter(None, (c["name"], c["url"]))) + f": {c['status']}" for c in page["channels"]
    ]
    if page["why"]:
        until = f" until {page['held_until_local']}" if page["held_until_local"] else ""
        parts.append(f"{page['why']}{until}")
    return "; ".join(parts) or "-"
