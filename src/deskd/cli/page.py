"""``deskd page --from R``: an agent (or the operator, for a role) asks a person for help."""

from __future__ import annotations

import click

from deskd.cli.common import emit, json_option, on_desk


@click.command()
@click.option("--from", "role", default=None, help="The role asking (default: DESKD_ROLE).")
@click.option("--title", required=True, help="What you need, in one line.")
@click.option("--body", default="", help="Details: what you tried, what would unblock you.")
@json_option
def page(role: str | None, title: str, body: str, as_json: bool) -> None:
    """Ask a person for help: the request enters the ladder at the notify rung and is paged
    at once on the role's channels (or waits in the outbox, `deskd pages`).

    It stays open until its item is acked — by the role (`deskd inbox ack --id N`) or by a
    person (`deskd wake ack ATTEMPT_ID`); then the channels that got it hear "settled".

    \b
    Examples:
      deskd page --from researcher --title "need prod DB credentials" --body "migration blocked"
      deskd page --title "tests need a human decision"      # inside a session: DESKD_ROLE
    """
    from deskd.service.engine.help import ask_for_help

    out = on_desk(ask_for_help, role=role, title=title, body=body)

    def human() -> None:
        if out["attempt_id"] is None:
            click.echo(f"help request recorded as item {out['item_id']}: {out['note'] or ''}")
            return
        sent = out["pages_sent"]
        where = (
            ", ".join(f"{c['name']} {c['status']}" for r in sent for c in r["channels"])
            or "the outbox (no channel)"
        )
        click.echo(
            f"help requested: attempt {out['attempt_id']}, item {out['item_id']}; paged: {where}"
        )

    emit(out, as_json, human)
