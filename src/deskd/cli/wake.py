"""``deskd wake list|explain|ack|sources``: the attempt ledger, explained; ``deskd pause`` and
``deskd resume``: stop (start) launching and paging for the desk or a role."""

from __future__ import annotations

import click

from deskd.cli.common import ID, Command, Group, Number, desk_context, on_desk
from deskd.cli.options import role_option
from deskd.cli.output import cells, emit, emit_table
from deskd.errors import InvalidValue, MissingRole
from deskd.service.desk import pauses


@click.group(cls=Group)
def wake() -> None:
    """The wake ledger: every attempt to wake a role, rung by rung.

    Examples:
      deskd wake list --open
      deskd wake explain --role researcher
      deskd wake ack 42 --note "I'm on it"
    """


@wake.command("list")
@click.option("--role", help="Only this role's attempts.")
@click.option("--open", "open_only", is_flag=True, help="Only live (pending) attempts.")
@click.option("--limit", default=50, show_default=True, type=Number(1, 10000))
def list_(role: str | None, open_only: bool, limit: int, as_json: bool) -> None:
    """Attempts, newest first: rung, outcome, launched/landed/resolved times.

    Examples:
      deskd wake list --open
      deskd wake list --role alpha --json
    """
    from deskd.service.engine.wake import list_wakes

    rows = on_desk(list_wakes, role=role, open_only=open_only, limit=limit)
    emit_table(
        rows,
        as_json,
        cells(rows, "id role key rung outcome launch_status attempted_at landed_at detail"),
        ["id", "role", "key", "rung", "outcome", "launch", "attempted", "landed", "detail"],
        empty="no attempts",
    )


@wake.command("explain")
@click.argument("attempt_id", required=False, type=ID)
@click.option("--role", help="Explain why this role is (not) being woken.")
def explain(attempt_id: int | None, role: str | None, as_json: bool) -> None:
    """Why a role is or is not being woken now; or one attempt's climb, rung by rung.

    Examples:
      deskd wake explain --role researcher
      deskd wake explain 42
    """
    from deskd.service.engine.wake import explain_attempt, explain_role

    if (attempt_id is None) == (role is None):
        raise InvalidValue("arguments", "", "give either --role R or an ATTEMPT_ID")
    lines = on_desk(explain_role, role) if role else on_desk(explain_attempt, int(attempt_id or 0))
    emit({"lines": lines}, as_json, "\n".join(lines))


@wake.command("ack")
@click.argument("attempt_id", type=ID)
@click.option("--note", required=True, help="Who has it and what they will do.")
def ack(attempt_id: int, note: str, as_json: bool) -> None:
    """A person has it: stop climbing and paging until the demand changes or 4 h pass.

    Examples:
      deskd wake ack 42 --note "on it — maria"
    """
    from deskd.service.engine.wake import ack as ack_attempt

    data = on_desk(ack_attempt, attempt_id, note=note)
    emit(data, as_json, f"attempt {attempt_id} acknowledged until {data['ack_until']}")


@wake.command("sources")
@role_option
def sources(role: str | None, as_json: bool) -> None:
    """Everything that can wake a role — hooks, its inbox, live attempts — and how to change it.

    Examples:
      deskd wake sources --role researcher
      deskd wake sources          # inside an agent's session: its own
    """
    from deskd.service.engine.wake import sources as wake_sources

    with desk_context() as ctx:
        role = role or ctx.settings.role
        if role is None:
            raise MissingRole("--role")
        data = wake_sources(ctx, role)

    def human() -> None:
        inbox = data["inbox"]
        click.echo(f"{role} can be woken by:")
        wakes = f", wakes at {inbox['wakes_at']}" if inbox["wakes_at"] else ""
        click.echo(f"  inbox: {inbox['unread']} unread ({inbox['urgent']} urgent){wakes}")
        click.echo(f"         from sources {', '.join(inbox['sources'])}")
        for h in data["hooks"]:
            # "every 900s" already says its kind; "0 9 * * *" and an ISO time do not.
            spec = h["spec"] if h["spec"].startswith(h["kind"]) else f"{h['kind']} {h['spec']}"
            click.echo(f"  hook {h['id']}: {spec} — next {h['next_fire_at']} — {h['title']}")
        if not data["hooks"]:
            click.echo("  hooks: none")
        for a in data["attempts"]:
            click.echo(f"  live attempt {a['id']}: {a['key']} on {a['rung']}")
        click.echo("how to change it:")
        for line in data["manage"]:
            click.echo(f"  {line}")

    emit(data, as_json, human)


@click.command(cls=Command)
@click.option("--role", help="Pause one role (default: the whole desk).")
@click.option("--reason", required=True, help="Why, for the board and the log.")
def pause(role: str | None, reason: str, as_json: bool) -> None:
    """Stop launching and paging (demand is still computed and shown) until `deskd resume`.

    Examples:
      deskd pause --reason "deploy freeze"
      deskd pause --role researcher --reason "rate limited"
    """
    pause_id = on_desk(pauses.pause, role=role, reason=reason)
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
    ended = on_desk(pauses.resume, role=role)
    where = f"role {role}" if role else "the desk"
    said = f"resumed {where}" if ended else f"{where} was not paused"
    emit({"resumed": ended, "role": role}, as_json, said)
