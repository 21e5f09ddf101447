"""``deskd pause`` / ``deskd resume``: stop (start) launching and paging for the desk or a role."""

from __future__ import annotations

import click

from deskd.cli.common import Command, on_desk
from deskd.cli.output import emit
from deskd.service.desk.pauses import pause as do_pause
from deskd.service.desk.pauses import resume as do_resume


@click.command(cls=Command)
@click.option("--role", help="Pause one role (default: the whole desk).")
@click.option("--reason", required=True, help="Why, for the board and the log.")
def pause(role: str | None, reason: str, as_json: bool) -> None:
    """Stop launching and paging (demand is still computed and shown) until `deskd resume`.

    Examples:
      deskd pause --reason "deploy freeze"
      deskd pause --role researcher --reason "rate limited"
    """
    pause_id = on_desk(do_pause, role=role, reason=reason)
    where = f"role {role}" if role else "the desk"
    emit({"id": pause_id, "role": role, "reason": reason}, as_json, f"paused {where}: {reason}")


@click.command(cls=Command)
@click.option("--role", help="Resume one role (default: the whole desk).")
def resume(role: str | None, as_json: bool) -> None:
    """Resume launching and paging for the desk or a role.

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
