"""A worktree per role, with the real executor (tests/fakes/fake-claude) on a real git
repository: two roles on one repository each work in their own checkout; `deskd diff` shows
each one's change and nothing of the other's; a worktree holding uncommitted work survives
`deskd prune` and a later launch (a restart) untouched; a clean one of a role that left the
desk goes, its branch kept."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import Desk, urgent

FAKES = Path(__file__).resolve().parents[1] / "fakes"
ROLE = '[[roles]]\nname = "{name}"\nworkdir = "{repo}"\nworktree = {worktree}\n'


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def repo(desk: Desk, tmp_path: Path) -> Path:
    """A repository with a.txt and b.txt committed on main; alpha and beta work on it, each in
    a worktree; every launch runs the fake agent, which records its environment."""
    folder = tmp_path / "repo"
    folder.mkdir()
    git(folder, "init", "-q", "-b", "main")
    (folder / "a.txt").write_text("a\n")
    (folder / "b.txt").write_text("b\n")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "start")
    write_desk(desk, folder, alpha=True, beta=True)
    desk.setenv("DESKD_AGENT_CMD", str(FAKES / "fake-claude"))
    return folder


def write_desk(desk: Desk, repo: Path, *, alpha: bool, beta: bool) -> None:
    roles = [("alpha", "true"), ("beta", '"work/beta"')]
    shown = [(n, w) for (n, w), on in zip(roles, (alpha, beta), strict=True) if on]
    desk.write_desk(
        '[desk]\nname = "test"\ntimezone = "America/New_York"\n\n'
        + "\n".join(ROLE.format(name=n, repo=repo, worktree=w) for n, w in shown)
    )


def launched_in(desk: Desk, role: str, tmp_path: Path) -> Path:
    """Wake ``role`` with an urgent item; the folder its agent ran in ($PWD)."""
    env_file = tmp_path / f"env-{role}.json"
    desk.monkeypatch.setenv("FAKE_ENV_FILE", str(env_file))
    urgent(desk, role=role)
    (launched,) = desk.json("tick", "--execute", "--wait")["launched"]
    assert launched["role"] == role
    desk.ok("inbox", "ack", "--for", role, "--seen")
    desk.advance(minutes=1)
    return Path(json.loads(env_file.read_text())["PWD"])


def test_two_roles_on_one_repository_each_work_in_their_own_worktree(
    desk: Desk, repo: Path, tmp_path: Path
) -> None:
    alpha = launched_in(desk, "alpha", tmp_path)
    beta = launched_in(desk, "beta", tmp_path)
    assert alpha == desk.home / "worktrees" / "alpha"
    assert beta == desk.home / "worktrees" / "beta"
    assert git(alpha, "branch", "--show-current").strip() == "deskd/alpha"
    assert git(beta, "branch", "--show-current").strip() == "work/beta"
    (alpha / "a.txt").write_text("a by alpha\n")  # uncommitted
    (alpha / "notes.txt").write_text("new\n")  # untracked
    (beta / "b.txt").write_text("b by beta\n")
    git(beta, "commit", "-q", "-am", "beta's change")  # committed on its branch

    mine = desk.json("diff", "alpha")
    assert [(f["path"], f["status"], f["added"]) for f in mine["files"]] == [("a.txt", "M", 1)]
    assert mine["untracked"] == ["notes.txt"] and "+a by alpha" in mine["text"]
    assert "b.txt" not in mine["text"]
    theirs = desk.json("diff", "beta", "--stat")
    assert [f["path"] for f in theirs["files"]] == ["b.txt"] and theirs["untracked"] == []
    assert "b.txt" in theirs["text"] and "a.txt" not in theirs["text"]
    assert theirs["base"] == git(repo, "rev-parse", "main").strip() != theirs["head"]
    assert (repo / "a.txt").read_text() == "a\n" and (repo / "b.txt").read_text() == "b\n"
    assert "uncommitted" in desk.ok("doctor").stdout

    # Both roles leave the desk: beta's clean worktree goes (its branch stays), alpha's holds
    # uncommitted work and stays; a later launch of alpha finds it as it was.
    desk.write_desk('[desk]\nname = "test"\n\n[[roles]]\nname = "gamma"\n')
    pruned = {
        Path(t["path"]).name: t for t in desk.json("prune", "--older-than", "30d")["worktrees"]
    }
    assert pruned["beta"]["removed"] is True and not beta.exists()
    assert pruned["alpha"]["removed"] is False and "uncommitted" in pruned["alpha"]["why"]
    assert git(repo, "log", "-1", "--format=%s", "work/beta").strip() == "beta's change"
    write_desk(desk, repo, alpha=True, beta=False)
    assert launched_in(desk, "alpha", tmp_path) == alpha
    assert (alpha / "a.txt").read_text() == "a by alpha\n" and (alpha / "notes.txt").exists()


def test_diff_refuses_a_role_without_a_worktree(desk: Desk) -> None:
    out = desk.run("diff", "alpha", "--json")
    assert out.exit_code == 1 and "worktree = true" in out.error()["message"]


def test_a_worktree_needs_a_git_workdir_and_a_valid_branch(desk: Desk, tmp_path: Path) -> None:
    desk.write_desk(f'[[roles]]\nname = "alpha"\nworkdir = "{tmp_path}"\nworktree = true\n')
    doctor = desk.run("doctor")
    assert doctor.exit_code == 1 and "worktree needs a workdir in a git repository" in doctor.stdout
    desk.write_desk('[[roles]]\nname = "alpha"\nworktree = "../evil"\n')
    out = desk.run("status")
    assert out.exit_code == 1 and "branch name" in out.stderr
