"""``deskd page``, ``pages``, ``ask``/``answer``/``questions``, ``silence`` and ``channels``:
people in the loop — asking one for help or for a decision, the pages sent, holding them,
and where they go."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from deskd.cli.common import ID, Command, Group, Number, desk_context, json_option, on_desk
from deskd.cli.output import cells, emit, emit_table, table
from deskd.errors import PeopleCommand
from deskd.service.paging import silences
from deskd.service.paging.channels import channel_views, send_test
from deskd.service.paging.pages import pages as list_pages


@click.command(cls=Command)
@click.option("--from", "role", help="The role asking (default: DESKD_ROLE).")
@click.option("--title", required=True, help="What you need, in one line.")
@click.option("--body", default="", help="Details: what you tried, what would unblock you.")
def page(role: str | None, title: str, body: str, as_json: bool) -> None:
    """Ask a person for help: the request enters the ladder at the notify rung and is paged
    at once on the role's channels (or waits in the outbox, `deskd pages`).

    It stays open until its item is acked — by the role (`deskd inbox ack --id N`) or by a
    person (`deskd wake ack ATTEMPT_ID`); then the channels that got it hear "settled".

    Examples:
      deskd page --from researcher --title "need prod DB credentials" --body "migration blocked"
      deskd page --title "tests need a human decision"      # inside a session: DESKD_ROLE
    """
    from deskd.service.engine.questions import ask_for_help

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


@click.command(cls=Command)
@click.option("--open", "open_only", is_flag=True, help="Only pages not yet resolved.")
@click.option("--limit", default=50, show_default=True, type=Number(1, 10000))
def pages(open_only: bool, limit: int, as_json: bool) -> None:
    """Pages to people, newest first: status, each channel's result, and why a page is held.

    Statuses: queued (new, or waiting in the outbox when no channel takes it), held (a
    silence, quiet hours, a pause or an ack; until when and why are shown), sent, partial
    (some channels took it), failed (retried with backoff for 24 h), resolved. Channel URLs
    are masked.

    Examples:
      deskd pages --open
      deskd pages --json
    """
    rows = on_desk(list_pages, open_only=open_only, limit=limit)
    emit_table(
        rows,
        as_json,
        cells(rows, "id role kind status where created_at title", where=_where),
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


@click.group(cls=Group)
def silence() -> None:
    """Hold a role's non-urgent pages (maintenance, a day off); urgent pages still go out.

    A silence is recorded, listed and expires on its own; held pages show as `held` in
    `deskd pages` and go out when it ends.

    Examples:
      deskd silence add --role researcher --for 2h --reason "deploy window"
      deskd silence list
      deskd silence end 3
    """


@silence.command("add")
@click.option("--role", required=True, help="The role whose pages to hold.")
@click.option("--for", "duration", required=True, help="How long: 90m, 2h, 1d.")
@click.option("--reason", required=True, help="Why, for the next person.")
def add(role: str, duration: str, reason: str, as_json: bool) -> None:
    """Hold ROLE's non-urgent pages for DUR.

    Examples:
      deskd silence add --role researcher --for 2h --reason "deploy window"
    """
    out = on_desk(silences.add, role=role, duration=duration, reason=reason)
    said = f"silence {out['id']}: {role}'s non-urgent pages held until {out['until_local']}"
    if out["replaced"]:
        said += " (replaces silence " + ", ".join(map(str, out["replaced"])) + ")"
    emit(out, as_json, said)


@silence.command("list")
@click.option("--all", "all_rows", is_flag=True, help="Ended and expired silences too.")
@click.option("--limit", default=50, show_default=True, type=Number(1, 10000))
def list_(all_rows: bool, limit: int, as_json: bool) -> None:
    """Silences in force (or every silence with --all).

    Examples:
      deskd silence list
      deskd silence list --all --json
    """
    rows = on_desk(silences.listing, all_rows=all_rows, limit=limit)
    emit_table(
        rows,
        as_json,
        cells(
            rows,
            "id role until_local state reason",
            state=lambda r: "live" if r["live"] else "over",
        ),
        ["id", "role", "until", "state", "reason"],
        empty="no silences in force" if not all_rows else "no silences",
    )


@silence.command("end")
@click.argument("silence_id", type=ID)
def end(silence_id: int, as_json: bool) -> None:
    """End a silence early; its held pages go out on the next tick.

    Examples:
      deskd silence end 3
    """
    out = on_desk(silences.end, silence_id)
    emit(out, as_json, f"silence {silence_id} ended; {out['pages_released']} held page(s) released")


@click.group(invoke_without_command=True, cls=Group)
@click.option("--no-check", is_flag=True, help="Skip the reachability probe (no network).")
@json_option
@click.pass_context
def channels(ctx: click.Context, no_check: bool, as_json: bool) -> None:
    """Configured channels (URLs masked), the roles they serve, and a reachability check.

    Channels come from [[channels]] in deskd.toml and DESKD_NOTIFY_URLS (paged for every
    role). The check asks apprise whether it can read each URL and whether the service's
    host answers on TCP; `deskd channels test NAME` really sends.

    Examples:
      deskd channels
      deskd channels --no-check --json
      deskd channels test ops
    """
    if ctx.invoked_subcommand is not None:
        return
    with desk_context() as dctx:
        rows = channel_views(dctx.settings, dctx.desk, check=not no_check)

    def human() -> None:
        lines = []
        for r in rows:
            for u in r["urls"] or [{"url": f"config {r['apprise_config']}", "missing": []}]:
                check = u.get("check") or r.get("config_check") or ""
                if u["missing"]:
                    check = "not set: " + ", ".join(u["missing"])
                url = u["url"] or "(not shown to agents)"
                lines.append((r["name"], url, ",".join(r["roles"]) or "-", check))
        empty = (
            "no channels: pages wait in the outbox (`deskd pages`); add [[channels]] to "
            "deskd.toml or set DESKD_NOTIFY_URLS"
        )
        table(lines, ["channel", "url", "roles", "check"], empty=empty)

    emit(rows, as_json, human)


@channels.command("test")
@click.argument("name")
def test(name: str, as_json: bool) -> None:
    """Send a test message on channel NAME and show each URL's result.

    Examples:
      deskd channels test ops
      deskd channels test DESKD_NOTIFY_URLS --json
    """
    with desk_context() as dctx:
        if dctx.settings.role:  # a real page reaches people: an agent asks with `deskd page`
            raise PeopleCommand("deskd channels test", "an agent asks a person with `deskd page`")
        out = send_test(dctx.settings, dctx.desk, name)

    def human() -> None:
        click.echo(f"test page on {name}: {out['status']}")
        table(
            [(c["url"] or "-", c["status"], c["error"] or "") for c in out["channels"]],
            ["url", "status", "error"],
        )

    emit(out, as_json, human)
    if out["status"] == "failed":
        raise SystemExit(1)


@click.command(cls=Command)
@click.argument("text")
@click.option("--options", help="The choices, comma-separated (e.g. yes,no).")
@click.option("--from", "role", help="The role asking (default: DESKD_ROLE).")
def ask(text: str, options: str | None, role: str | None, as_json: bool) -> None:
    """Ask a person to decide, and wait: prints the question's id.

    The question is paged at once like `deskd page` (routing, quiet hours, silences; it climbs
    while unanswered) and blocks your task in progress (`blocked on question N`). The answer
    comes back as an urgent item from the person, and wakes you with it in the prompt; after
    24 h without one it comes back as "no answer".

    Examples:
      deskd ask "deploy v2 to production?" --options yes,no
      deskd ask "which branch should the fix go to?"          # answered in words
    """
    from deskd.service.engine.questions import ask as do_ask

    out = on_desk(do_ask, text, options=options, role=role)
    blocked = f"; task {out['task_id']} is blocked on it" if out["task_id"] else ""
    emit(
        out, as_json, f"{out['id']}\nquestion {out['id']} asked{blocked}; wait for the answer item"
    )


@click.command(cls=Command)
@click.argument("question_id", type=ID)
@click.argument("answer")
def answer(question_id: int, answer: str, as_json: bool) -> None:
    """Answer an agent's question: one of its options, or words when it offered none.

    Examples:
      deskd answer 7 yes
      deskd answer 8 "the release branch"
    """
    from deskd.service.engine.questions import answer as do_answer

    out = on_desk(do_answer, question_id, answer)
    emit(out, as_json, f"question {question_id} answered: {out['answer']}")


@click.command(cls=Command)
def questions(as_json: bool) -> None:
    """Questions agents asked, newest first: open, answered or expired, and the answer.

    Examples:
      deskd questions
      deskd questions --json
    """
    from deskd.service.engine.questions import questions as list_questions

    rows = on_desk(list_questions)
    emit_table(
        rows,
        as_json,
        cells(rows, "id role state text options answer"),
        ["id", "role", "state", "question", "options", "answer"],
        empty="no questions",
    )
