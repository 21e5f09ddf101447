"""``deskd status`` (the board), ``status set|end``, ``deskd roles``, ``deskd heartbeat`` and
``deskd metrics``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from deskd.cli.board_text import print_roles
from deskd.cli.common import Command, Group, acting, desk_context, json_option, on_desk
from deskd.cli.options import role_option, session_id_option
from deskd.cli.output import emit
from deskd.service.desk.presence import end_status, role_presences, set_status
from deskd.service.desk.presence import heartbeat as beat


@click.group(invoke_without_command=True, cls=Group)
@json_option
@click.pass_context
def status(click_ctx: click.Context, as_json: bool) -> None:
    """The board: each role's presence, activity, unread items and items past their SLA, the last tick.

    Alone it prints the board; `status set` and `status end` declare a role's presence.
    Reading the board never writes to the database.

    Examples:
      deskd status                                   # the board
      deskd status --json
      deskd status set --role alpha --activity "triaging #42"
      deskd status set --role alpha --state resting   # turn ended, resumable
      deskd status end --role alpha                   # session over, not resumable
    """
    if click_ctx.invoked_subcommand is not None:
        return
    from deskd.cli.board_text import print_board  # the board: not for `status set`
    from deskd.service.ops.board import board

    with desk_context() as ctx:
        data = board(ctx)
    emit(data, as_json, lambda: print_board(data, now=ctx.now, tz=ctx.tz))


def presence_sentence(result: Mapping[str, Any]) -> str:
    session = f" (session {result['session_id']})" if result.get("session_id") else ""
    return f"{result['role']}: {result['presence']}{session}"


@status.command("set")
@role_option
@click.option(
    "--state",
    default="working",
    show_default=True,
    help="working (busy now) or resting (turn ended, resumable).",
)
@click.option("--activity", help="What the role is doing, in one line.")
@session_id_option
def set_(role: str | None, session_id: str | None, as_json: bool, **status: Any) -> None:
    """Declare a role's presence: a heartbeat now, working or resting.

    Examples:
      deskd status set --role alpha --activity "reviewing PR 12"
      deskd status set --role alpha --state resting --json
      DESKD_ROLE=alpha deskd status set --activity "deploying"   # inside alpha's session
    """
    with desk_context() as ctx:
        who = acting(ctx, "--role", role)
        native_id = session_id or ctx.settings.session_id
        result = set_status(ctx, who, native_id=native_id, **status)
    emit(result, as_json, presence_sentence(result))


@status.command("end")
@role_option
def end(role: str | None, as_json: bool) -> None:
    """End the role's live session: it is offline and will not be resumed.

    To say a turn ended but the session can be resumed, use `status set --state resting`.

    Examples:
      deskd status end --role alpha
      deskd status end --role alpha --json
    """
    with desk_context() as ctx:
        who = acting(ctx, "--role", role)
        result = end_status(ctx, who, by=ctx.settings.role or "operator")
    emit(result, as_json, "ended " + presence_sentence(result))


@click.command(cls=Command)
@role_option
@session_id_option
@click.option("--token", help="The wake token (default: DESKD_WAKE_TOKEN).")
def heartbeat(role: str | None, session_id: str | None, token: str | None, as_json: bool) -> None:
    """Record a heartbeat by hand — what the session hook does on every tool call.

    Examples:
      deskd heartbeat --role alpha
      deskd heartbeat --role alpha --session-id 9f1c2d3e-... --json
    """
    with desk_context() as ctx:
        who = acting(ctx, "--role", role)
        native_id = session_id or ctx.settings.session_id
        result = beat(ctx, who, native_id=native_id, token=token or ctx.settings.wake_token)
    emit(result, as_json, "heartbeat: " + presence_sentence(result))


@click.command(cls=Command)
def roles(as_json: bool) -> None:
    """Every role with its presence, session, activity, last heartbeat and unread items.

    Presence: online / suspect / dead by heartbeat age while working, idle once a turn ended,
    offline once the session ended, never without a heartbeat.

    Examples:
      deskd roles
      deskd roles --json
    """
    rows = on_desk(role_presences)
    emit(rows, as_json, lambda: print_roles(rows))


@click.command(cls=Command, json=False)
def metrics() -> None:
    """Print the desk's metrics in Prometheus' text format, read from the database now.

    The same text `deskd serve` answers on /metrics, for hosts that run only the cron tick:
    node_exporter's textfile collector reads a file this command writes. Write it to a
    temporary name and rename it, so the collector never reads half a file.

    Examples:
      deskd metrics
      deskd metrics > /var/lib/node_exporter/textfile/deskd.prom.$$ &&
        mv /var/lib/node_exporter/textfile/deskd.prom.$$ /var/lib/node_exporter/textfile/deskd.prom
    """
    from deskd.service.ops.metrics import render

    text = on_desk(render)
    click.echo(text.decode("utf-8"), nl=False)
