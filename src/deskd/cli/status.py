"""``deskd status`` (the board), ``status set|end``, ``deskd roles``, ``deskd heartbeat`` and
``deskd metrics``. Colour marks presence and trouble on a terminal only."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import click

from deskd.cli.common import Command, Group, acting, desk_context, json_option, on_desk
from deskd.cli.options import role_option, session_id_option
from deskd.cli.output import cells, echo, emit, secho, style, table
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
        result = set_status(ctx, who, native_id=session_id or ctx.settings.session_id, **status)
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


PRESENCE_COLOUR = {"online": "green", "suspect": "yellow", "dead": "red"}

Cell = str | tuple[str, str | None]
NO_ROLES = "this desk has no roles: add a [[roles]] table to deskd.toml"


def _presence_cell(row: Mapping[str, Any]) -> Cell:
    text = row["presence"] if row["enabled"] else f"{row['presence']} (disabled)"
    return (text, PRESENCE_COLOUR.get(row["presence"]) if row["enabled"] else None)


def _age(seconds: int | None) -> str:
    from deskd.core.timeparse import human_age

    return "-" if seconds is None else f"{human_age(seconds)} ago"


def _clip(text: str | None, width: int) -> str:
    if not text:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"


ROLE_CELLS: dict[str, Any] = {
    "title": lambda r: _clip(r["title"], 24),
    "presence": _presence_cell,
    "session": lambda r: _clip(r["session_id"], 12),
    "activity": lambda r: _clip(r["activity"], 40),
    "heartbeat": lambda r: _age(r["heartbeat_age_s"]),
    "past_sla": lambda r: (str(r["overdue"]), "red" if r["overdue"] else None),
}
"""A role's cells in ``deskd roles`` and on the board that are not its row's value as it is
(``cells``' computed columns)."""


def print_roles(rows: Sequence[Mapping[str, Any]], keys: str = "") -> None:
    """The roles table: ``keys`` its columns (headers: ``_`` read as a space)."""
    keys = keys or "role title presence session activity heartbeat unread"
    headers = [key.replace("_", " ") for key in keys.split()]
    table(cells(rows, keys, **ROLE_CELLS), headers, empty=NO_ROLES)


def print_board(data: Mapping[str, Any], *, now: int, tz: str) -> None:
    from deskd.core.timeparse import human_age, local_text

    health = data["health"]
    echo(style(f"desk {health['desk_name']}", bold=True) + f" · {local_text(now, tz)}")
    echo()
    print_roles(data["roles"], "role presence activity heartbeat unread past_sla")
    echo()
    overdue = data["overdue"]
    if overdue:
        # The ledger's words: past its SLA, an item is "escalated" while a wake climbs for
        # it and "overdue" while none does; the heading counts both, the rows say which.
        states = Counter(i["state"] for i in overdue)
        split = ", ".join(f"{states[s]} {s}" for s in ("overdue", "escalated") if states[s])
        shown = "" if data["overdue_total"] == len(overdue) else f" in the first {len(overdue)}"
        secho(f"past their SLA ({data['overdue_total']}): {split}{shown}", fg="red", bold=True)
        table(
            cells(
                overdue,
                "item_id to priority state sla title",
                sla=lambda i: (f"{human_age(i['overdue_s'])} over", "red"),
                title=lambda i: _clip(i["title"], 60),
            ),
            ["item", "to", "priority", "state", "sla", "title"],
        )
        if data["overdue_total"] > len(overdue):
            more = data["overdue_total"] - len(overdue)
            echo(
                f"… and {more} more (deskd ledger --state overdue, deskd ledger --state escalated)"
            )
    else:
        echo("past their SLA: none")
    _print_wakes(data)
    echo()
    if health["last_tick_at"] is None:
        secho(f"last tick: {health['message']}", fg="yellow")
    else:
        colour = "red" if health["tick_stale"] else None
        mode = f" ({health['last_tick_mode']})" if health.get("last_tick_mode") else ""
        secho(f"last tick: {_age(health['last_tick_age_s'])}{mode}", fg=colour)
        if health.get("last_tick_mode") == "dry-run":
            if health.get("last_execute_at") is None:
                secho(
                    "no executing tick has run yet: dry runs launch nothing "
                    "(`deskd tick --execute`, or `deskd cron-line --execute`)",
                    fg="yellow",
                )
            else:
                echo(f"last executing tick: {_age(health['last_execute_age_s'])}")
    echo(f"database: {health['db']}")
    for host in data.get("hosts", []):
        roles = f" · runs {', '.join(host['roles'])}" if host["roles"] else ""
        if host["last_tick_at"] is None:
            secho(f"host {host['name']}: never ticked{roles}", fg="red")
        else:
            colour = "red" if host["stale"] else None
            after = host.get("overdue_after_s")
            late = f" · overdue (none for {human_age(after)} or more)" if host["stale"] else ""
            secho(
                f"host {host['name']}: last executing tick {_age(host['last_tick_age_s'])}"
                f"{late}{roles}",
                fg=colour,
            )


def _print_wakes(data: Mapping[str, Any]) -> None:
    """Live attempts (badges in red), open pages, and pauses."""
    echo()
    if data["attempts"]:
        secho("live wakes", bold=True)
        table(
            cells(
                data["attempts"],
                "id role key rung launch_status detail",
                rung=lambda a: (a["rung"], "red" if a["badge"] else None),
                detail=lambda a: _clip(a["detail"], 50),
            ),
            ["id", "role", "key", "rung", "launch", "detail"],
        )
    else:
        echo("live wakes: none")
    for page in data["pages"]:
        secho(f"page {page['id']} ({page['status']}): {page['title']}", fg="yellow")
    for task in data.get("stalled_tasks", []):
        secho(
            f"stalled: task {task['id']} ({task['role']}) {task['title']} — woken "
            f"{task['idle_wakes']} times without a change (deskd task update {task['id']} …)",
            fg="yellow",
        )
    for s in data.get("stuck", []):
        state = "recovered" if s["recovered"] else "not recovered yet"
        secho(f"stuck: {s['role']} attempt {s['attempt_id']} {s['detail']} — {state}", fg="yellow")
    for w in data.get("routed", []):
        echo(f"routed: {w['kind']} {w['id']} → {w['role']} — {w['why']}")
    for pause in data["paused"]:
        who = f"role {pause['role']}" if pause["role"] else "the desk"
        secho(f"paused: {who} — {pause['reason']} (deskd resume)", fg="yellow")
