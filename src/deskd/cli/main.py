"""``deskd``: the root group. Subcommand modules load lazily so ``deskd --version`` and a
single command import only what they use (no apprise, fastapi or croniter unless needed)."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from deskd import __version__
from deskd.cli.common import DeskdGroup

# (module, the commands it declares), in the order `deskd --help` lists them; a command is
# the module's function of its name, "-" read as "_".
MODULES = (
    ("deskd.cli.init", "init"),
    ("deskd.cli.doctor", "doctor migrate-db"),
    ("deskd.cli.demo", "demo"),
    ("deskd.cli.status", "status roles heartbeat"),
    ("deskd.cli.inbox", "inbox send ledger"),
    ("deskd.cli.hook", "hook"),
    ("deskd.cli.tick", "tick"),
    ("deskd.cli.session_hook", "relay"),
    ("deskd.cli.agent", "agent logs wait"),
    ("deskd.cli.wake", "wake pause resume"),
    ("deskd.cli.session_hook", "session-hook"),
    ("deskd.cli.schedule", "cron-line timer"),
    ("deskd.cli.doctor", "prune"),
    ("deskd.cli.agent", "diff"),
    ("deskd.cli.paging", "pages page ask answer questions channels silence"),
    ("deskd.cli.task", "task"),
    ("deskd.cli.session", "session"),
    ("deskd.cli.meeting", "meeting"),
    ("deskd.cli.serve", "serve"),
    ("deskd.cli.status", "metrics"),
    ("deskd.cli.usage", "usage budget"),
    ("deskd.cli.serve", "supervisor"),
    ("deskd.cli.completion", "completion"),
)
COMMANDS = {name: module for module, names in MODULES for name in names.split()}
"""Command name -> the module declaring it."""

# Old name -> new name: still run for one release, unlisted, saying the new name on stderr.
RENAMED = {"hooks": "session-hook"}


class LazyGroup(DeskdGroup):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in RENAMED:
            new = RENAMED[cmd_name]
            if not ctx.resilient_parsing:  # not while the shell completes a word
                click.echo(
                    f"deskd: `deskd {cmd_name}` is now `deskd {new}`; "
                    "the old name goes in the next release",
                    err=True,
                )
            cmd_name = new
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module = importlib.import_module(target)
        command: click.Command = getattr(module, cmd_name.replace("-", "_"))
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        # click suggests from ``self.commands``, which a lazy group leaves empty: suggest
        # from the names it lists, as click does for a mistyped option.
        name = args[0] if args else ""
        known = name in COMMANDS or name in RENAMED
        if name and not name.startswith("-") and not known and not ctx.resilient_parsing:
            import difflib

            close = difflib.get_close_matches(name, list(COMMANDS), n=3, cutoff=0.6)
            hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            ctx.fail(f"No such command {name!r}.{hint}")
        return super().resolve_command(ctx, args)


@click.group(
    cls=LazyGroup,
    # NO_COLOR (no-color.org): click's own echo strips colours like off a terminal.
    context_settings={
        "help_option_names": ["-h", "--help"],
        "max_content_width": 100,
        **({"color": False} if os.environ.get("NO_COLOR") else {}),
    },
)
@click.version_option(__version__, "--version", prog_name="deskd", message="%(prog)s %(version)s")
def cli() -> None:
    """deskd wakes a desk of headless AI coding agents, proves each wake landed, and
    climbs an escalation ladder to a person when it did not.

    \b
    The desk is found from DESKD_HOME (default: this folder); see `deskd doctor`.
    Examples:
      deskd init                      # an annotated desk in this folder
      deskd status                    # the board
      deskd inbox enqueue --for researcher --source alert --title "disk 91%"
      deskd inbox list --for researcher
    """


def main(argv: list[str] | None = None) -> Any:
    if "_DESKD_COMPLETE" in os.environ:  # the shell asks for completions (deskd completion)
        from deskd.cli.completion import attach

        attach(cli)
    return cli.main(args=argv if argv is not None else sys.argv[1:], prog_name="deskd")
