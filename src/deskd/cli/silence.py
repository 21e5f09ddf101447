"""``deskd silence add|list|end``: hold a role's non-urgent pages for a while."""

from __future__ import annotations

import click

from deskd.cli.common import ID, Number, emit, emit_table, json_option, on_desk


@click.group()
def silence() -> None:
    """Hold a role's non-urgent pages (maintenance, a day off); urgent pages still go out.

    A silence is recorded, listed and expires on its own; held pages show as `held` in
    `deskd pages` and go out when it ends.

    \b
    Examples:
      deskd silence add --role researcher --for 2h --reason "deploy window"
      deskd silence list
      deskd silence end 3
    """


@silence.command("add")
@click.option("--role", required=True, help="The role whose pages to hold.")
@click.option("--for", "duration", required=True, help="How long: 90m, 2h, 1d.")
@click.option("--reason", required=True, help="Why, for the next person.")
@json_option
def add(role: str, duration: str, reason: str, as_json: bool) -> None:
    """Hold ROLE's non-urgent pages for DUR.

    \b
    Examples:
      deskd silence add --role researcher --for 2h --reason "deploy window"
    """
    from deskd.service.paging.silences import add as add_silence

    out = on_desk(add_silence, role=role, duration=duration, reason=reason)
    said = f"silence {out['id']}: {role}'s non-urgent pages held until {out['until_local']}"
    if out["replaced"]:
        said += " (replaces silence " + ", ".join(map(str, out["replaced"])) + ")"
    emit(out, as_json, said)


@silence.command("list")
@click.option("--all", "all_rows", is_flag=True, help="Ended and expired silences too.")
@click.option("--limit", default=50, show_default=True, type=Number(1, 10000))
@json_option
def list_(all_rows: bool, limit: int, as_json: bool) -> None:
    """Silences in force (or every silence with --all).

    \b
    Examples:
      deskd silence list
      deskd silence list --all --json
    """
    from deskd.service.paging.silences import listing

    rows = on_desk(listing, all_rows=all_rows, limit=limit)
    emit_table(
        rows,
        as_json,
        [
            (r["id"], r["role"], r["until_local"], "live" if r["live"] else "over", r["reason"])
            for r in rows
        ],
        ["id", "role", "until", "state", "reason"],
        empty="no silences in force" if not all_rows else "no silences",
    )


@silence.command("end")
@click.argument("silence_id", type=ID)
@json_option
def end(silence_id: int, as_json: bool) -> None:
    """End a silence early; its held pages go out on the next tick.

    \b
    Examples:
      deskd silence end 3
    """
    from deskd.service.paging.silences import end as end_silence

    out = on_desk(end_silence, silence_id)
    emit(out, as_json, f"silence {silence_id} ended; {out['pages_released']} held page(s) released")
