"""README's commands work verbatim in a fresh shell, on a fresh clone.

The worktree is cloned with git into a temporary folder and README's "Start a desk" block is
run line by line by a fresh ``bash`` (no rc files) in the clone's folder, with ``HOME`` in a
temporary folder, followed by its shell-completion install line. What ``make demo`` would
build is not rebuilt: the clone's ``.venv`` is a link to this interpreter's virtualenv (a
reinstall would take minutes and the network), so the clone's own code is not what runs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block_after(heading: str) -> list[str]:
    section = README.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, f"no sh block under {heading}"
    return [line for line in block.group(1).splitlines() if line.strip()]


def _completion_line() -> str:
    found = re.search(r"Shell completion, once per shell: `([^`]*)`", README, re.S)
    assert found, "README lost its completion install line"
    return " ".join(found.group(1).split())


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_readme_start_a_desk_commands_work_verbatim_on_a_fresh_clone(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=300)
    (clone / ".venv").symlink_to(Path(sys.executable).parent.parent)
    home = tmp_path / "home"
    home.mkdir()
    lines = [*_block_after("Start a desk"), _completion_line()]
    script = "set -e\n" + "\n".join(lines) + "\n"
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    env |= {k: v for k, v in os.environ.items() if k.startswith("PG") or k == "TMPDIR"}
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{lines}\n{done.stdout}\n{done.stderr}"
    assert (home / "desk" / "deskd.toml").is_file()
    assert (home / ".local/share/bash-completion/completions/deskd").stat().st_size > 0
