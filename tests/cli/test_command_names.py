"""The Claude Code session-hook settings are ``deskd session-hook print|install``, a name that
cannot be mistaken for ``deskd hook`` (wake hooks). The old ``deskd hooks`` still works for
one release, unlisted, and says the new name on stderr."""

from __future__ import annotations

import click

from conftest import Desk
from deskd.cli.main import cli

NOTICE = "deskd: `deskd hooks` is now `deskd session-hook`; the old name goes in the next release"


def test_session_hook_prints_the_settings_and_names_itself(desk: Desk) -> None:
    out = desk.ok("session-hook", "print", "--role", "alpha")
    assert '"hooks"' in out.stdout
    assert "deskd session-hook install" in out.stderr
    assert "deskd hooks" not in out.stderr


def test_the_old_name_still_works_and_says_the_new_one(desk: Desk) -> None:
    new = desk.ok("session-hook", "print", "--role", "alpha", "--json")
    old = desk.ok("hooks", "print", "--role", "alpha", "--json")
    assert old.stdout == new.stdout
    assert old.stderr.splitlines() == [NOTICE]
    assert " hooks [OPTIONS] COMMAND" in desk.ok("hooks", "--help").stdout


def test_the_old_name_is_not_listed_or_offered() -> None:
    ctx = click.Context(cli)
    assert "session-hook" in cli.list_commands(ctx)
    assert "hooks" not in cli.list_commands(ctx)
    shown = cli.get_help(ctx)
    assert "session-hook" in shown
    assert " hooks " not in shown


def test_a_mistyped_name_is_offered_the_new_one(desk: Desk) -> None:
    out = desk.run("session-hooks", "print")
    assert out.exit_code == 2
    assert "Did you mean 'session-hook'" in out.stderr
