"""Install the four real agent CLIs at the versions pinned in ``versions.json``.

``python tests/real_agents/install.py [CACHE]`` (what ``make real-agents`` runs) puts them under
``CACHE`` (default ``.cache/real-agents``) with ``npm install --prefix``; a cache whose
installed versions already match the pins is reused without touching the network. The test
tier imports ``ensure_installed`` to do the same, so one cache serves every worker.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
VERSIONS = HERE / "versions.json"
DEFAULT_CACHE = ROOT / ".cache" / "real-agents"
EXECUTABLES = {
    "@anthropic-ai/claude-code": "claude",
    "@openai/codex": "codex",
    "@google/gemini-cli": "gemini",
    "opencode-ai": "opencode",
}


class NotInstallable(Exception):
    """node/npm are missing or ``npm install`` failed; the message says which."""


def pins() -> dict[str, str]:
    value = json.loads(VERSIONS.read_text(encoding="utf-8"))
    return {str(k): str(v) for k, v in value.items()}


def installed_version(cache: Path, package: str) -> str | None:
    manifest = cache / "node_modules" / package / "package.json"
    try:
        return str(json.loads(manifest.read_text(encoding="utf-8")).get("version"))
    except (OSError, ValueError):
        return None


def missing(cache: Path) -> list[str]:
    """``package@version`` for every pin the cache does not hold (or holds another version of)."""
    out = []
    for package, version in pins().items():
        binary = cache / "node_modules" / ".bin" / EXECUTABLES[package]
        if installed_version(cache, package) != version or not binary.exists():
            out.append(f"{package}@{version}")
    return out


def bin_dir(cache: Path = DEFAULT_CACHE) -> Path:
    return cache / "node_modules" / ".bin"


def ensure_installed(cache: Path = DEFAULT_CACHE) -> Path:
    """The cache's ``node_modules/.bin`` with all four CLIs at their pins; installs what is missing.

    A file lock makes parallel callers (pytest-xdist workers) install once and share.
    """
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise NotInstallable("node and npm are not on PATH")
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        todo = missing(cache)
        if todo:
            cmd = ["npm", "install", "--prefix", str(cache), "--no-audit", "--no-fund"]
            done = subprocess.run(
                [*cmd, "--save-exact", *todo], capture_output=True, text=True, check=False
            )
            if done.returncode != 0:
                tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
                raise NotInstallable(f"npm install {' '.join(todo)} failed: {' | '.join(tail)}")
            still = missing(cache)
            if still:
                raise NotInstallable(f"npm install left out {', '.join(still)}")
    return bin_dir(cache)


APPROX_SIZE = "about 1.3 GB from npm"
"""What the four pins take once installed (measured with these pins: 1.32 GB)."""


def size_on_disk(folder: Path) -> str:
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return f"{total / 1e9:.1f} GB" if total >= 1e8 else f"{total / 1e6:.0f} MB"


def main(argv: list[str]) -> int:
    """``install.py [--if-possible] [CACHE]``: install, saying what, how big and where.

    ``--if-possible`` (``make test``) exits 0 with the reason when node/npm are missing: the
    tier then skips.
    """
    optional = "--if-possible" in argv
    args = [a for a in argv[1:] if a != "--if-possible"]
    cache = Path(args[0]).resolve() if args else DEFAULT_CACHE
    if optional and os.environ.get("DESKD_REAL_AGENTS") == "0":
        print("real agents: DESKD_REAL_AGENTS=0: not installed; the real-agent tier skips")
        return 0
    todo = missing(cache)
    if todo and shutil.which("npm") is not None:
        print(
            f"real agents: installing {', '.join(todo)} with npm into {cache} "
            f"({APPROX_SIZE}; the download takes a few minutes; DESKD_REAL_AGENTS=0 skips it)",
            flush=True,
        )
    try:
        where = ensure_installed(cache)
    except NotInstallable as exc:
        if optional:
            print(f"real agents: not installed ({exc}); the real-agent tier will skip")
            return 0
        print(f"real agents: {exc}", file=sys.stderr)
        return 1
    names = ", ".join(f"{EXECUTABLES[p]} {v}" for p, v in pins().items())
    verb = "installed" if todo else "already installed"
    print(f"real agents: {names} {verb} in {where} ({size_on_disk(cache)} on disk)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
