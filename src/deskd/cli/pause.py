"""``deskd pause`` / ``deskd resume``: stop (start) launching and paging for the desk or a role."""

from __future__ import annotations

import click

from deskd.cli.common import emit, json_option, on_desk
from deskd.service.desk.pauses import pause as do_pause
from deskd.service.desk.pauses import resume as do_resume


@click.command()
@click.option("--role", help="Pause one role (default: the whole desk).")
@click.option("--reason", required=True, help="Why, for the board and the log.")
@json_option
def pause(role: str | None, reason: str, as_json: bool) -> None:
    """Stop launching and paging (demand is still computed and shown) until `deskd resume`.

    \b
    Examples:
      deskd pause --reason "deploy freeze"
      deskd pause --role researcher --reason "rate limited"
    """
    pause_id = on_desk(do_pause, role=role, reason=reason)
    where = f"role {role}" if role else "the desk"
    emit({"id": pause_id, "role": role, "reason": reason}, as_json, f"paused {where}: {reason}")


@click.command()
@click.option("--role", help="Resume one role (default: the whole desk).")
@json_option
def resume(role: str | None, as_json: bool) -> None:
    """Resume launching and paging for the desk or a role.

    \b
    Examples:
      deskd resume
      deskd resume --role researcher
    """
    ended = on_desk(do_resume, role=role)
    where = f"role {role}" if role else "the desk"
    emit(
        {"resumed": ended, "role": role},
        as_json,
        f"resumed {where}" if ended else f"{where} was not paused",
    )
