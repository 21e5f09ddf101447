"""``deskd status`` (the board), ``status set|end``, ``deskd roles`` and ``deskd heartbeat``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import click

from deskd.cli.common import desk_context, emit, json_option

# Colour is applied with click.style and stripped by click.echo when stdout is not a tty.
PRESENCE_COLOUR = {"online": "green", "suspect": "yellow", "dead": "red"}

Cell = str | tuple[str, str | None]


@click.group(invoke_without_command=True)
@json_option
@click.pass_context
def status(click_ctx: click.Context, as_json: bool) -> None:
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
    if click_ctx.invoked_subcommand is not None:
        return
    from deskd.service.ops.board import board

    with desk_context() as ctx:
        data = board(ctx)
        now, tz = ctx.now, ctx.tz
    emit(data, as_json, lambda: _print_board(data, now=now, tz=tz))


@status.command("set")
@click.option("--role", default=None, help="The role (default: DESKD_ROLE).")
@click.option(
    "--state",
    default="working",
    show_default=True,
    help="working (busy now) or resting (turn ended, resumable).",
)
@click.option("--activity", default=None, help="What the role is doing, in one line.")
@click.option(
    "--session-id", default=None, help="The agent's native session id (default: DESKD_SESSION_ID)."
)
@json_option
def set_(
    role: str | None, state: str, activity: str | None, session_id: str | None, as_json: bool
) -> None:
    """Declare a role's presence: a heartbeat now, working or resting.

    \b
    Examples:
      deskd status set --role alpha --activity "reviewing PR 12"
      deskd status set --role alpha --state resting --json
      DESKD_ROLE=alpha deskd status set --activity "deploying"   # inside alpha's session
    """
    from deskd.service.desk.identity import acting_role
    from deskd.service.desk.presence import set_status

    with desk_context() as ctx:
        who = acting_role(ctx, "--role", role)
        result = set_status(
            ctx,
            who,
            state=state,
            activity=activity,
            native_id=session_id or ctx.settings.session_id,
        )
    emit(result, as_json, _sentence(result))


@status.command("end")
@click.option("--role", default=None, help="The role (default: DESKD_ROLE).")
@json_option
def end(role: str | None, as_json: bool) -> None:
    """End the role's live session: it is offline and will not be resumed.

    To say a turn ended but the session can be resumed, use `status set --state resting`.

    \b
    Examples:
      deskd status end --role alpha
      deskd status end --role alpha --json
    """
    from deskd.service.desk.identity import acting_role
    from deskd.service.desk.presence import end_status

    with desk_context() as ctx:
        who = acting_role(ctx, "--role", role)
        result = end_status(ctx, who, by=ctx.settings.role or "operator")
    emit(result, as_json, "ended " + _sentence(result))


@click.command()
@click.option("--role", default=None, help="The role (default: DESKD_ROLE).")
@click.option(
    "--session-id", default=None, help="The agent's native session id (default: DESKD_SESSION_ID)."
)
@click.option("--token", default=None, help="The wake token (default: DESKD_WAKE_TOKEN).")
@json_option
def heartbeat(role: str | None, session_id: str | None, token: str | None, as_json: bool) -> None:
    """Record a heartbeat by hand — what the session hook does on every tool call.

    \b
    Examples:
      deskd heartbeat --role alpha
      deskd heartbeat --role alpha --session-id 9f1c2d3e-... --json
    """
    from deskd.service.desk.identity import acting_role
    from deskd.service.desk.presence import heartbeat as beat

    with desk_context() as ctx:
        who = acting_role(ctx, "--role", role)
        result = beat(
            ctx,
            who,
            native_id=session_id or ctx.settings.session_id,
            token=token or ctx.settings.wake_token,
        )
    emit(result, as_json, "heartbeat: " + _sentence(result))


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

    with desk_context() as ctx:
        rows = role_presences(ctx)
    emit(rows, as_json, lambda: _print_roles(rows))


# -- readable output -----------------------------------------------------------------------


def _sentence(result: dict[str, Any]) -> str:
    session = f" (session {result['session_id']})" if result.get("session_id") else ""
    return f"{result['role']}: {result['presence']}{session}"


def _presence_cell(row: dict[str, Any]) -> Cell:
    text = row["presence"] if row["enabled"] else f"{row['presence']} (disabled)"
    return (text, PRESENCE_COLOUR.get(row["presence"]) if row["enabled"] else None)


def _age(seconds: int | None) -> str:
    from deskd.core.timeparse import human_age

    return "-" if seconds is None else f"{human_age(seconds)} ago"


def _clip(text: str | None, width: int) -> str:
    if not text:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"


def _print_roles(rows: list[dict[str, Any]]) -> None:
    if not rows:
        click.echo("this desk has no roles: add a [[roles]] table to deskd.toml")
        return
    _table(
        [
            (
                r["role"],
                _clip(r["title"], 24),
                _presence_cell(r),
                _clip(r["session_id"], 12),
                _clip(r["activity"], 40),
                _age(r["heartbeat_age_s"]),
                str(r["unread"]),
            )
            for r in rows
        ],
        ["role", "title", "presence", "session", "activity", "heartbeat", "unread"],
    )


def _print_board(data: dict[str, Any], *, now: int, tz: str) -> None:
    from deskd.core.timeparse import human_age, local_text

    health = data["health"]
    click.echo(click.style(f"desk {health['desk_name']}", bold=True) + f" · {local_text(now, tz)}")
    click.echo()
    _print_board_roles(data["roles"])
    click.echo()
    overdue = data["overdue"]
    if overdue:
        # The ledger's words: past its SLA, an item is "escalated" while a wake climbs for
        # it and "overdue" while none does; the heading counts both, the rows say which.
        states = Counter(i["state"] for i in overdue)
        split = ", ".join(f"{states[s]} {s}" for s in ("overdue", "escalated") if states[s])
        shown = "" if data["overdue_total"] == len(overdue) else f" in the first {len(overdue)}"
        click.secho(
            f"past their SLA ({data['overdue_total']}): {split}{shown}", fg="red", bold=True
        )
        _table(
            [
                (
                    str(i["item_id"]),
                    i["to"],
                    i["priority"],
                    i["state"],
                    (f"{human_age(i['overdue_s'])} over", "red"),
                    _clip(i["title"], 60),
                )
                for i in overdue
            ],
            ["item", "to", "priority", "state", "sla", "title"],
        )
        if data["overdue_total"] > len(overdue):
            more = data["overdue_total"] - len(overdue)
            click.echo(
                f"… and {more} more (deskd ledger --state overdue, deskd ledger --state escalated)"
            )
    else:
        click.echo("past their SLA: none")
    _print_wakes(data)
    click.echo()
    if health["last_tick_at"] is None:
        click.secho(f"last tick: {health['message']}", fg="yellow")
    else:
        colour = "red" if health["tick_stale"] else None
        mode = f" ({health['last_tick_mode']})" if health.get("last_tick_mode") else ""
        click.secho(f"last tick: {_age(health['last_tick_age_s'])}{mode}", fg=colour)
    click.echo(f"database: {health['db']}")


def _print_wakes(data: dict[str, Any]) -> None:
    """Live attempts (badges in red), open pages, and pauses."""
    click.echo()
    if data["attempts"]:
        click.secho("live wakes", bold=True)
        _table(
            [
                (
                    str(a["id"]),
                    a["role"],
                    a["key"],
                    (a["rung"], "red" if a["badge"] else None),
                    a["launch_status"] or "",
                    _clip(a["detail"], 50),
                )
                for a in data["attempts"]
            ],
            ["id", "role", "key", "rung", "launch", "detail"],
        )
    else:
        click.echo("live wakes: none")
    for page in data["pages"]:
        click.secho(f"page {page['id']} ({page['status']}): {page['title']}", fg="yellow")
    for task in data.get("stalled_tasks", []):
        click.secho(
            f"stalled: task {task['id']} ({task['role']}) {task['title']} — woken "
            f"{task['idle_wakes']} times without a change (deskd task update {task['id']} …)",
            fg="yellow",
        )
    for w in data.get("routed", []):
        click.echo(f"routed: {w['kind']} {w['id']} → {w['role']} — {w['why']}")
    for pause in data["paused"]:
        who = f"role {pause['role']}" if pause["role"] else "the desk"
        click.secho(f"paused: {who} — {pause['reason']} (deskd resume)", fg="yellow")


def _print_board_roles(rows: list[dict[str, Any]]) -> None:
    if not rows:
        click.echo("this desk has no roles: add a [[roles]] table to deskd.toml")
        return
    _table(
        [
            (
                r["role"],
                _presence_cell(r),
                _clip(r["activity"], 40),
                _age(r["heartbeat_age_s"]),
                str(r["unread"]),
                (str(r["overdue"]), "red" if r["overdue"] else None),
            )
            for r in rows
        ],
        ["role", "presence", "activity", "heartbeat", "unread", "past sla"],
    )


def _table(rows: Sequence[Sequence[Cell]], headers: Sequence[str]) -> None:
    """A left-aligned table whose cells may carry a colour; padding is measured unstyled."""
    plain = [[c if isinstance(c, str) else c[0] for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in plain)) for i, h in enumerate(headers)]
    click.echo(
        click.style(
            "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip(), bold=True
        )
    )
    last = len(headers) - 1
    for row in rows:
        cells = []
        for index, (cell, width) in enumerate(zip(row, widths, strict=True)):
            text, colour = (cell, None) if isinstance(cell, str) else cell
            padded = text if index == last else text.ljust(width)
            cells.append(click.style(padded, fg=colour) if colour else padded)
        click.echo("  ".join(cells).rstrip())
