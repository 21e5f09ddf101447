"""README's commands, in order, in a fresh shell on a fresh clone.

The worktree's HEAD is cloned with git into a temporary folder. A fresh ``bash`` (no rc
files, nothing in the environment but ``HOME`` in a temporary folder, a ``PATH`` of the
system's folders, the locale and pip's cache) runs README's first command, ``make demo``,
there: it builds the clone's own ``.venv`` from the package registry (pip's cache is shared,
so nothing is downloaded twice) and rehearses the demo desk to its end, leaving no process
behind. Then, in the same kind of shell, README's "Start a desk" block line by line and its
shell-completion install line. No registry to install from: skipped, saying so.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import _leaked

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
GUARD_S = 3600  # an outer guard only: each step ends when its command does
OFFLINE = re.compile(
    r"Failed to establish a new connection|Temporary failure in name resolution|"
    r"Network is unreachable|No matching distribution found|ProxyError"
)


def _block_after(heading: str) -> list[str]:
    section = README.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, f"no sh block under {heading}"
    return [line for line in block.group(1).splitlines() if line.strip()]


def _completion_line() -> str:
    found = re.search(r"Shell completion, once per shell: `([^`]*)`", README, re.S)
    assert found, "README lost its completion install line"
    return " ".join(found.group(1).split())


def _pip_cache() -> str:
    if os.environ.get("PIP_CACHE_DIR"):
        return os.environ["PIP_CACHE_DIR"]
    done = subprocess.run(
        [sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or str(Path.home() / ".cache" / "pip")


def _shell(lines: list[str], clone: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        "HOME": str(home),
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PIP_CACHE_DIR": _pip_cache(),
    }
    env |= {k: v for k, v in os.environ.items() if k == "TMPDIR"}
    return subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", "set -e\n" + "\n".join(lines) + "\n"],
        cwd=clone,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=GUARD_S,
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_readmes_commands_work_in_order_in_a_fresh_shell_on_a_fresh_clone(tmp_path: Path) -> None:
    clone, home = tmp_path / "clone", tmp_path / "home"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=300)
    home.mkdir()
    first = _block_after("Try it")[0].split("#", 1)[0].strip()
    assert first == "make demo", first
    before = {int(p) for p in os.listdir("/proc") if p.isdigit()}
    started = time.monotonic()
    demo = _shell([first], clone, home)
    installed = (clone / ".venv/bin/.installed").exists()
    if demo.returncode != 0 and not installed and OFFLINE.search(demo.stderr):
        pytest.skip("no package registry reachable: `make demo` could not install deskd")
    assert demo.returncode == 0, f"{demo.stdout[-3000:]}\n{demo.stderr[-3000:]}"
    assert re.search(r"The local channel received [1-9]\d* pages?\.", demo.stdout), demo.stdout
    assert "(the temporary desk was removed" in demo.stdout
    assert _leaked(f"HOME={home}".encode(), before) == []
    assert (clone / ".venv/bin/deskd").is_file()  # the clone's own, installed from the registry
    print(f"make demo on a fresh clone: {time.monotonic() - started:.0f} s")

    lines = [*_block_after("Start a desk"), _completion_line()]
    done = _shell(lines, clone, home)
    assert done.returncode == 0, f"{lines}\n{done.stdout}\n{done.stderr}"
    assert (home / "desk" / "deskd.toml").is_file()
    assert (home / ".local/share/bash-completion/completions/deskd").stat().st_size > 0
    assert _leaked(f"HOME={home}".encode(), before) == []
