"""``deskd doctor``: which desk is in use and whether it works, one line per check."""

from __future__ import annotations

import click

from deskd.cli.common import emit, json_option

MARKS = {"ok": "✓", "warn": "!", "fail": "✗"}


@click.command()
@json_option
@click.pass_context
def doctor(ctx: click.Context, as_json: bool) -> None:
    """Check the desk folder, desk file, database and each role's agent executable.

    Prints which desk folder, desk file and database this shell resolves (from
    DESKD_HOME, DESKD_DESK, DESKD_DB), then one line per check: ✓ passed, ! warning,
    ✗ failed. Exits 1 when any check failed (warnings do not fail). Works on a broken
    or missing desk file: that check fails and the others still run. The ways in are
    checked too: each [[events]] source's token or secret variable is set, and with
    DESKD_REPLY_IMAP_URL set, the reply mailbox is logged in to and its folder selected.

    \b
    Examples:
      deskd doctor
      DESKD_HOME=/srv/desk deskd doctor --json
    """
    from deskd.service.ops.doctor import run_checks

    checks = run_checks()
    failed = [c for c in checks if not c.ok]

    def human() -> None:
        width = max(len(c.name) for c in checks)
        for check in checks:
            line = f"{MARKS[check.level]} {check.name.ljust(width)}  {check.detail}"
            colour = {"ok": None, "warn": "yellow", "fail": "red"}[check.level]
            click.echo(click.style(line, fg=colour) if colour else line)
        if failed:
            click.echo(f"\n{len(failed)} check{'s' if len(failed) != 1 else ''} failed")
        else:
            click.echo("\nall checks passed")

    emit({"checks": [c.as_json() for c in checks]}, as_json, human)
    if failed:
        ctx.exit(1)
