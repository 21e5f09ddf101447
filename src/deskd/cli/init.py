"""``deskd init``: create a working, annotated desk in DESKD_HOME (default: this folder),
from a person's answers, a script's flags or the example (the command's help says when)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from deskd.cli.common import Command
from deskd.cli.output import emit
from deskd.service.ops.init_answers import AGENT_KINDS

if TYPE_CHECKING:
    from deskd.config.settings import Settings
    from deskd.service.ops.init_answers import DeskAnswers, RoleAnswer
    from deskd.service.paging.channels import ChannelTest


@click.command(cls=Command)
@click.option(
    "--role",
    "roles",
    multiple=True,
    metavar="NAME[:TITLE[:WORKDIR]]",
    help="A role of the desk (repeatable); the workdir must exist. Asks nothing.",
)
@click.option(
    "--agent",
    metavar="KIND",
    help=f"The roles' agent CLI: {', '.join(AGENT_KINDS)} (default: the first of them on "
    f"PATH, else {AGENT_KINDS[0]}). Asks nothing.",
)
@click.option(
    "--channel",
    metavar="URL",
    help="An apprise URL paged for every role, tested first (a failed test page writes "
    "nothing); it is kept in .env as OPS_CHANNEL_URL. Asks nothing.",
)
@click.option(
    "--name", metavar="NAME", help="The desk's name (default: the folder's). Asks nothing."
)
@click.option(
    "--timezone",
    metavar="ZONE",
    help="The desk's IANA time zone (default: this machine's). Asks nothing.",
)
@click.option(
    "--yes",
    "-y",
    is_flag=True,
    help="Ask nothing: every answer not given by a flag takes the default a question offers.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Rewrite deskd.toml and .env.example if they exist, keeping a timestamped backup of "
    "each (the database is never touched).",
)
@click.option(
    "--new-db",
    is_flag=True,
    help="Only create an empty database where this desk's was lost (never replaces one).",
)
def init(yes: bool, force: bool, new_db: bool, as_json: bool, **flags: Any) -> None:
    """Create a desk: deskd.toml, .env.example, data/deskd.db, logs/ and run/.

    On a terminal with no flags, it asks for the desk name, the time zone (default: this
    machine's), the roles (name, title, workdir, and the agent CLI among those on PATH)
    and a channel URL, which it tests with a test page; a bad answer is asked again with
    the reason. --role, --agent, --channel, --name, --timezone and --yes give the answers
    without questions, for scripts. With stdin not a terminal and none of them, nothing is
    asked and the example desk (roles researcher and operator, UTC) is written.

    Refuses when deskd.toml or .env.example already exists, unless --force, which keeps
    each as NAME.bak-<UTC timestamp>, rewrites those two files and leaves the database
    (items, sessions, history) as it is.

    Examples:
      deskd init                       # in the current folder; asks on a terminal
      deskd init --role triage:Triage:~/src/app --role coder --agent codex
      deskd init --yes --channel 'json://localhost:8080/hook'
      DESKD_HOME=/srv/desk deskd init  # somewhere else
      deskd init --force --json        # rewrite the annotated files
      deskd init --new-db              # the database was lost: start over with an empty one

    A desk that had a database and lost it (deleted, or 0 bytes) is refused by every
    command (exit 3) rather than silently recreated empty; --new-db is the way to start over.
    """
    from dataclasses import asdict

    from deskd.adapters.clock import now_ms
    from deskd.config.settings_model import validate_settings
    from deskd.errors import OptionsConflict
    from deskd.service.ops.scaffold import init_desk, refuse_existing

    settings = validate_settings()
    scripted = yes or any(flags.values())  # --role, --agent, --channel, --name, --timezone
    if new_db and scripted:
        raise OptionsConflict(
            "--new-db",
            "creates only the lost database",
            ("--role", "--agent", "--channel", "--name", "--timezone", "--yes"),
        )
    answers = None
    tested: ChannelTest | None = None
    if not new_db:
        refuse_existing(settings, force=force)
        if scripted:
            answers = _from_flags(settings, **flags)
            tested = _test_or_refuse(settings, answers)
        elif not as_json and sys.stdin.isatty():
            answers, tested = _ask(settings)
    done = init_desk(
        settings, force=force, new_db=new_db, now=now_ms(settings.now), answers=answers
    )
    data: dict[str, Any] = asdict(done)  # its paths are printed as text (emit's default=str)
    if tested is not None:
        data["channel_test"] = tested

    def human() -> None:
        click.echo(f"desk folder  {done.home}")
        for path in done.backups:
            click.echo(f"kept         {path} (what --force replaced)")
        for path in done.written:
            click.echo(f"wrote        {path}")
        state = "created" if done.db_created else "kept as it is"
        click.echo(f"database     {done.db} ({state})")
        click.echo("folders      data/ logs/ run/")
        if tested is not None:
            click.echo(f"channel      ops: test page {tested['status']}")
        click.echo("")
        if answers is None:
            click.echo("next: edit deskd.toml (roles, timezone), then run `deskd doctor`")
        else:
            click.echo("next: run `deskd doctor`")

    emit(data, as_json, human)


def _from_flags(
    settings: Settings,
    roles: tuple[str, ...],
    agent: str | None,
    channel: str | None,
    name: str | None,
    timezone: str | None,
) -> DeskAnswers:
    """The answers a script gave; what it left out takes the default a question offers."""
    from deskd.service.ops import init_answers as ia

    home = settings.home
    found = ia.agents_on_path(os.environ.get("PATH", os.defpath))
    parsed: list[RoleAnswer] = []
    for spec in roles:
        parsed.append(ia.parse_role(spec, home, [r.name for r in parsed]))
    return ia.DeskAnswers(
        name=ia.check_desk_name(name) if name is not None else ia.desk_name(home),
        timezone=ia.check_timezone(timezone) if timezone is not None else ia.system_timezone(),
        roles=tuple(parsed) or (ia.RoleAnswer("researcher", "Researcher"),),
        agent=ia.check_agent(agent) if agent is not None else (found or AGENT_KINDS)[0],
        channel=ia.check_channel(channel) if channel is not None else None,
    )


def _test_or_refuse(settings: Settings, answers: DeskAnswers) -> ChannelTest | None:
    """A script's channel gets its test page; a failed one is refused before anything is
    written (a desk whose only channel cannot page would fail quietly later)."""
    from deskd.errors import ChannelTestFailed
    from deskd.service.ops.init_answers import failed_sends
    from deskd.service.ops.init_template import try_channel

    if answers.channel is None:
        return None
    result = try_channel(settings, answers)
    if result["status"] != "sent":
        raise ChannelTestFailed("--channel", failed_sends(result))
    return result


def _prompt(text: str, check: Callable[[str], Any], **kw: Any) -> Any:
    """``click.prompt`` whose answer ``check`` reads: a refused one is asked again with its
    reason."""
    from deskd.errors import DeskdError

    def proc(value: str) -> Any:
        try:
            return check(value)
        except DeskdError as exc:
            raise click.UsageError(exc.message) from None

    return click.prompt(text, value_proc=proc, **kw)


def _ask(settings: Settings) -> tuple[DeskAnswers, ChannelTest | None]:
    """The guided questions; nothing is written until every one is answered."""
    from deskd.service.ops import init_answers as ia

    home = settings.home
    click.echo(
        f"A new desk in {home}. Enter takes the [default]; Ctrl-C stops (nothing is written "
        "until the last answer)."
    )
    name = _prompt("Desk name", ia.check_desk_name, default=ia.desk_name(home))
    zone = _prompt("Time zone (IANA name)", ia.check_timezone, default=ia.system_timezone())
    found = ia.agents_on_path(os.environ.get("PATH", os.defpath))
    if found:
        click.echo(f"Agent CLIs on PATH: {', '.join(found)}")
    else:
        click.echo(
            f"None of {', '.join(ia.AGENT_KINDS)} is on PATH: pick the one you will install "
            "(`deskd doctor` says how)"
        )
    kinds = found or list(ia.AGENT_KINDS)
    roles: list[RoleAnswer] = []
    agent = kinds[0]
    while True:
        role, agent = _ask_role(home, roles, kinds, agent)
        roles.append(role)
        if not click.confirm("Add another role?", default=False):
            break
    answers = ia.DeskAnswers(
        name=name, timezone=zone, roles=tuple(roles), agent=roles[0].agent or agent
    )
    return _ask_channel(settings, answers)


def _ask_role(
    home: Path, roles: list[RoleAnswer], kinds: list[str], agent: str
) -> tuple[RoleAnswer, str]:
    from deskd.service.ops import init_answers as ia

    taken = [r.name for r in roles]
    number = len(roles) + 1
    name = _prompt(
        f"Role {number} name",
        lambda v: ia.check_role_name(v, taken),
        default=None if roles else "researcher",
    )
    title = _prompt("  title", ia.check_title, default=ia.default_title(name))
    workdir = _prompt(
        "  workdir, the folder its agent works in (empty: the desk folder)",
        lambda v: ia.check_workdir(v, home),
        default="",
        show_default=False,
    )
    choice = _prompt(
        f"  agent CLI ({', '.join(kinds)})", lambda v: ia.check_agent(v, kinds), default=agent
    )
    role = ia.RoleAnswer(name=name, title=title, workdir=workdir, agent=choice)
    return role, choice


def _ask_channel(
    settings: Settings, answers: DeskAnswers
) -> tuple[DeskAnswers, ChannelTest | None]:
    """A channel URL, tested with a real test page; a failed one is asked again (or kept)."""
    from deskd.service.ops import init_answers as ia

    while True:
        url = _prompt(
            "Channel URL to page a person (an apprise URL like discord://ID/TOKEN; empty: none)",
            ia.check_channel,
            default="",
            show_default=False,
        )
        if url is None:
            return answers._replace(channel=None), None
        answers = answers._replace(channel=url)
        click.echo("  sending a test page …")
        from deskd.service.ops.init_template import try_channel

        result = try_channel(settings, answers)
        if result["status"] == "sent":
            click.echo("  test page sent")
            return answers, result
        click.echo(f"  test page {result['status']}: {ia.failed_sends(result)}")
        if click.confirm("  Keep this URL anyway?", default=False):
            return answers, result
