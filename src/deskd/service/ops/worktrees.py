"""The roles' worktrees for people: `deskd diff`, `deskd doctor`'s checks, `deskd prune`'s
clean-up (the layout and the rules are service/engine/worktrees.py's)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from deskd.adapters.process import GitFailed, git
from deskd.errors import DeskdError, WorktreeRefused
from deskd.service.engine.launch_command import role_worktree
from deskd.service.engine.worktrees import FOLDER, DiffJson, diff_of, uncommitted

if TYPE_CHECKING:
    from deskd.config.desk import Desk
    from deskd.service.desk.context import DeskContext
    from deskd.service.ops.doctor_db import Check


def role_diff(ctx: DeskContext, role: str, *, stat: bool) -> DiffJson:
    """`deskd diff ROLE`: the role's work against the commit its worktree started from."""
    tree = role_worktree(ctx.desk, ctx.settings.home, role)
    if tree is None:
        raise WorktreeRefused(role, "it has no worktree (set worktree = true on the role)")
    return diff_of(tree, stat=stat)


def worktree_checks(desk: Desk, home: Path) -> list[Check]:
    """Each role with ``worktree`` set: its workdir is in a git repository, and its worktree
    (once made) is a checkout of its branch; uncommitted work is reported, never touched."""
    from deskd.service.ops.doctor_db import Check

    checks = []
    for role in desk.enabled_roles:
        name = f"worktree {role}"
        try:
            tree = role_worktree(desk, home, role)
        except DeskdError as exc:
            fine = "no worktree yet" in exc.message  # made at the role's first launch
            checks.append(Check(name, "ok" if fine else "fail", exc.message))
            continue
        if tree is None:
            continue
        try:
            branch = git(tree.path, "branch", "--show-current").strip()
            dirty = uncommitted(tree.path)
        except GitFailed as exc:
            checks.append(Check(name, "fail", f"{tree.path}: {exc}"))
            continue
        if branch != tree.branch:
            checks.append(
                Check(name, "warn", f"{tree.path} is on {branch or 'no branch'}, not {tree.branch}")
            )
            continue
        held = f", {len(dirty)} uncommitted" if dirty else ""
        checks.append(Check(name, "ok", f"{tree.path} on {tree.branch}{held}"))
    return checks


class PrunedTree(TypedDict):
    """A worktree `deskd prune` looked at: ``removed``, or kept and why."""

    path: str
    removed: bool
    why: str


def prune_worktrees(ctx: DeskContext, *, dry_run: bool, running: set[str]) -> list[PrunedTree]:
    """Remove the worktrees of roles no longer on the desk (or disabled) that hold no
    uncommitted or untracked file and no running launch; keep the rest, saying why. The
    branch stays: what the role committed is never lost."""
    folder = ctx.settings.home / FOLDER
    if not folder.is_dir():
        return []
    out: list[PrunedTree] = []
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
