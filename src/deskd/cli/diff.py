"""``deskd diff ROLE``: a role's work in its worktree against where the worktree started."""

from __future__ import annotations

import click

from deskd.cli.common import emit, json_option, on_desk


@click.command()
@click.argument("role")
@click.option("--stat", is_flag=True, help="A summary per file instead of the patch.")
@json_option
def diff(role: str, stat: bool, as_json: bool) -> None:
    """Show a role's work against the commit its worktree started from: committed and
    uncommitted changes to tracked files, then the untracked files. For a role with
    `worktree = true` (or a branch name) in deskd.toml.

    \b
    Examples:
      deskd diff alpha
      deskd diff alpha --stat
      deskd diff alpha --json
    """
    from deskd.service.ops.worktrees import role_diff

    out = on_desk(role_diff, role, stat=stat)

    def human() -> None:
        click.echo(f"{role}: {out['branch']} in {out['worktree']}, against {out['base'][:12]}")
        click.echo(out["text"].rstrip("\n") or "no change to tracked files")
        for path in out["untracked"]:
            click.echo(f"untracked: {path}")

    emit(out, as_json, human)
