"""The roles' worktrees for people: `deskd diff` and `deskd prune`'s clean-up (the layout and
the rules are service/engine/worktrees.py's; doctor's checks, service/ops/doctor_db.py's)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from deskd.adapters.process import GitFailed, git
from deskd.errors import WorktreeRefused
from deskd.service.engine.launch_command import role_worktree
from deskd.service.engine.worktrees import FOLDER, DiffJson, diff_of, uncommitted
from deskd.store.records import JSON

if TYPE_CHECKING:
    from deskd.config.desk import Desk
    from deskd.service.desk.context import DeskContext


def role_diff(ctx: DeskContext, role: str, *, stat: bool) -> DiffJson:
    """`deskd diff ROLE`: the role's work against the commit its worktree started from."""
    tree = role_worktree(ctx.desk, ctx.settings.home, role)
    if tree is None:
        raise WorktreeRefused(role, "it has no worktree (set worktree = true on the role)")
    return diff_of(tree, stat=stat)


def prune_worktrees(ctx: DeskContext, *, dry_run: bool, running: set[str]) -> list[JSON]:
    """Remove the worktrees of roles no longer on the desk (or disabled) that hold no
    uncommitted or untracked file and no running launch; keep the rest, saying why. The
    branch stays: what the role committed is never lost. One ``path``, ``removed``, ``why``
    each."""
    folder = ctx.settings.home / FOLDER
    if not folder.is_dir():
        return []
    out: list[JSON] = []
    for path in sorted(p for p in folder.iterdir() if (p / ".git").exists()):
        why = _kept_because(ctx.desk, path, running)
        if why is None and not dry_run:
            try:
                git(path, "worktree", "remove", str(path))
            except GitFailed as exc:
                why = str(exc)
        out.append({"path": str(path), "removed": why is None, "why": why or "its role left"})
    return out


def _kept_because(desk: Desk, path: Path, running: set[str]) -> str | None:
    role = path.name
    if role in desk.enabled_roles:
        return "its role is on the desk"
    if role in running:
        return "a launch of its role is running"
    try:
        dirty = uncommitted(path)
    except GitFailed as exc:
        return str(exc)
    return f"it holds uncommitted work ({len(dirty)} paths)" if dirty else None
