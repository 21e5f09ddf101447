"""``deskd status`` (the board), ``status set|end``, ``deskd roles`` and ``deskd heartbeat``."""

from __future__ import annotations

import click

from deskd.cli import agent_commands
from deskd.cli.agent_commands import acting, presence_sentence
from deskd.cli.board_text import print_roles
from deskd.cli.common import desk_context, emit, json_option, on_desk, runs
from deskd.cli.options import role_option, session_id_option


@click.group(invoke_without_command=True)
@json_option
@runs(agent_commands.status_board)
def status() -> None:
    """The board: each role's presence, activity, unread items and items past their SLA, the last tick.

    Alone it prints the board; `status set` and `status end` declare a role's presence.
    Reading the board never writes to the database.

    \b
    Examples:
      deskd status                                   # the board
      deskd status --json
      deskd status set --role alpha --activity "triaging #42"
      deskd status set --role alpha --state resting   # turn ended, resumable
      deskd status end --role alpha                   # session over, not resumable
    """


@status.command("set")
@role_option
@click.option(
    "--state",
    default="working",
    show_default=True,
    help="working (busy now) or resting (turn ended, resumable).",
)
@click.option("--activity", default=None, help="What the role is doing, in one line.")
@session_id_option
@json_option
@runs(agent_commands.status_set)
def set_() -> None:
    """Declare a role's presence: a heartbeat now, working or resting.

    \b
    Examples:
      deskd status set --role alpha --activity "reviewing PR 12"
      deskd status set --role alpha --state resting --json
      DESKD_ROLE=alpha deskd status set --activity "deploying"   # inside alpha's session
    """


@status.command("end")
@role_option
@json_option
def end(role: str | None, as_json: bool) -> None:
    """End the role's live session: it is offline and will not be resumed.

    To say a turn ended but the session can be resumed, use `status set --state resting`.

    \b
    Examples:
      deskd status end --role alpha
      deskd status end --role alpha --json
    """
    from deskd.service.desk.presence import end_status

    with desk_context() as ctx:
        who = acting(ctx, "--role", role)
        result = end_status(ctx, who, by=ctx.settings.role or "operator")
    emit(result, as_json, "ended " + presence_sentence(result))


@click.command()
@role_option
@session_id_option
@click.option("--token", default=None, help="The wake token (default: DESKD_WAKE_TOKEN).")
@json_option
@runs(agent_commands.heartbeat)
def heartbeat() -> None:
    """Record a heartbeat by hand — what the session hook does on every tool call.

    \b
    Examples:
      deskd heartbeat --role alpha
      deskd heartbeat --role alpha --session-id 9f1c2d3e-... --json
    """


@click.command()
@json_option
def roles(as_json: bool) -> None:
    """Every role with its presence, session, activity, last heartbeat and unread items.

    Presence: online / suspect / dead by heartbeat age while working, idle once a turn ended,
    offline once the session ended, never without a heartbeat.

    \b
    Examples:
      deskd roles
      deskd roles --json
    """
    from deskd.service.desk.presence import role_presences

    rows = on_desk(role_presences)
    emit(rows, as_json, lambda: print_roles(rows))
