"""A git worktree per role (``worktree = true`` or a branch name on a role).

Layout: ``<desk folder>/worktrees/<role>/`` is the role's checkout, on its own branch
(``deskd/<role>`` unless the role names one), made from the repository's HEAD at the role's
first launch; the commit it started from is kept as the ref ``refs/deskd/base/<role>`` in
the repository, so ``deskd diff`` shows the role's work against it, whatever the repository
does meanwhile. A worktree is kept across sessions and restarts, never reset; deskd removes
one only in ``deskd prune``, and only when its role has left the desk, no launch of it is
running, and it holds no uncommitted or untracked file (its branch stays).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypedDict

from deskd.adapters.process import GitFailed, git
from deskd.errors import WorktreeRefused

if TYPE_CHECKING:
    from deskd.config.desk import RoleConfig

FOLDER = "worktrees"
BASE_REF = "refs/deskd/base/"


class Worktree(NamedTuple):
    role: str
    path: Path
    """The checkout's top folder (``worktrees/<role>``)."""
    workdir: Path
    """Where the role's agent runs: the workdir's place inside the checkout."""
    branch: str
    repo: Path


def branch_of(role: RoleConfig) -> str | None:
    """The role's worktree branch, or None when it works in its workdir as given."""
    if role.worktree is True:
        return f"deskd/{role.name}"
    return role.worktree or None


def locate(home: Path, role: str, folder: Path, branch: str) -> Worktree:
    """Where ``role``'s worktree is (or would be) for a workdir ``folder`` in a repository."""
    try:
        top = Path(git(folder, "rev-parse", "--show-toplevel").strip())
    except GitFailed as exc:
        raise WorktreeRefused(
            role, f"worktree needs a workdir in a git repository ({exc})"
        ) from None
    path = home / FOLDER / role
    inside = folder.resolve().relative_to(top.resolve())
    return Worktree(role, path, path / inside, branch, top)


def ensure_worktree(home: Path, role: str, folder: Path, branch: str) -> Worktree:
    """The role's worktree, made when missing: its branch from the repository's HEAD (or the
    branch as it is, when it exists), its start recorded. An existing one is used as it is."""
    tree = locate(home, role, folder, branch)
    if (tree.path / ".git").exists():
        return tree
    if tree.path.exists() and any(tree.path.iterdir()):
        raise WorktreeRefused(role, f"{tree.path} is not a git worktree; deskd leaves it alone")
    try:
        head = git(tree.repo, "rev-parse", "HEAD").strip()
        known = git(
            tree.repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", check=False
        )
        tree.path.parent.mkdir(parents=True, exist_ok=True)
        if known.strip():
            git(tree.repo, "worktree", "add", str(tree.path), branch)
            base = git(tree.repo, "merge-base", branch, head).strip()
        else:
            git(tree.repo, "worktree", "add", "-b", branch, str(tree.path), head)
            base = head
        # The start is written once: a worktree made again later keeps its first base.
        zero = "0" * len(base)
        git(tree.repo, "update-ref", BASE_REF + role, base, zero, check=False)
    except GitFailed as exc:
        raise WorktreeRefused(role, f"could not make its worktree: {exc}") from None
    return tree


def existing(home: Path, role: str, folder: Path, branch: str) -> Worktree:
    """``role``'s worktree as it is now; refused when it has none yet."""
    tree = locate(home, role, folder, branch)
    if not (tree.path / ".git").exists():
        raise WorktreeRefused(role, f"no worktree yet at {tree.path}: its first launch makes it")
    return tree


class FileChange(TypedDict):
    path: str
    status: str
    added: int | None
    removed: int | None


class DiffJson(TypedDict):
    """`deskd diff ROLE --json`: the role's work against the commit its worktree started from:
    committed and uncommitted changes to tracked files, and the untracked files."""

    role: str
    worktree: str
    branch: str
    base: str
    head: str
    files: list[FileChange]
    untracked: list[str]
    text: str
    """The patch (``--stat``: git's summary)."""


def diff_of(tree: Worktree, *, stat: bool) -> DiffJson:
    """The role's work in ``tree`` against the commit the worktree started from."""
    role = tree.role
    try:
        base = git(tree.path, "rev-parse", "--verify", BASE_REF + role).strip()
        head = git(tree.path, "rev-parse", "HEAD").strip()
        counts = git(tree.path, "diff", "--no-renames", "--numstat", "-z", base)
        statuses = git(tree.path, "diff", "--no-renames", "--name-status", "-z", base).split("\0")
        untracked = git(tree.path, "ls-files", "--others", "--exclude-standard", "-z")
        text = git(tree.path, "diff", "--stat" if stat else "--patch", base)
    except GitFailed as exc:
        raise WorktreeRefused(role, f"cannot read its worktree {tree.path}: {exc}") from None
    status = dict(zip(statuses[1::2], statuses[0::2], strict=False))
    files: list[FileChange] = []
    for entry in counts.split("\0"):
        if entry.count("\t") == 2:
            added, removed, path = entry.split("\t")
            files.append(
                {
                    "path": path,
                    "status": status.get(path, "M")[:1],
                    "added": int(added) if added.isdigit() else None,  # "-": binary
                    "removed": int(removed) if removed.isdigit() else None,
                }
            )
    return {
        "role": role,
        "worktree": str(tree.path),
        "branch": tree.branch,
        "base": base,
        "head": head,
        "files": files,
        "untracked": [p for p in untracked.split("\0") if p],
        "text": text,
    }


def uncommitted(path: Path) -> list[str]:
    """The worktree's uncommitted and untracked paths (``git status``), empty when clean."""
    return [line[3:] for line in git(path, "status", "--porcelain").splitlines() if line]
