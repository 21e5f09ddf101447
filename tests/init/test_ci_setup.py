"""What CI and `make test` install is said, not hidden: `.ci/apt-install` installs only the
missing Debian packages, never upgrading others, with apt's output in a log file; the
real-agent install names each CLI, its size and where it went. Fake apt-get and npm on PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def fake(folder: Path, name: str, body: str) -> None:
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text("#!/usr/bin/env bash\n" + body, encoding="utf-8")
    path.chmod(0o755)


@pytest.fixture
def calls(tmp_path: Path) -> Path:
    return tmp_path / "calls.txt"


def apt_install(tmp_path: Path, calls: Path, *packages: str) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    fake(
        bin_dir,
        "apt-get",
        f'echo "apt-get $*" >> {calls}\nfor i in $(seq 300); do echo "Unpacking thing $i"; done\n',
    )
    fake(bin_dir, "dpkg-query", "exit 1\n")  # nothing is installed, as far as dpkg says
    fake(bin_dir, "sudo", '"$@"\n')
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin", "APT_LOG": str(tmp_path / "apt.log")}
    return subprocess.run(
        [str(ROOT / ".ci" / "apt-install"), *packages],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_only_missing_packages_are_installed_without_upgrades_or_noise(
    tmp_path: Path, calls: Path
) -> None:
    out = apt_install(tmp_path, calls, "bash", "deskd-test-missing")
    assert out.returncode == 0, out.stderr
    installs = [c for c in calls.read_text().splitlines() if " install " in c]
    assert len(installs) == 1
    assert installs[0].endswith(" deskd-test-missing")  # bash is on this machine already
    for flag in ("--no-upgrade", "--no-install-recommends", "-qq"):
        assert flag in installs[0].split()
    assert "Unpacking" not in out.stdout  # dpkg's progress goes to the log
    assert "Unpacking thing 300" in (tmp_path / "apt.log").read_text()
    assert len(out.stdout.splitlines()) <= 2
    assert "installed deskd-test-missing" in out.stdout


def test_nothing_runs_when_everything_is_present(tmp_path: Path, calls: Path) -> None:
    out = apt_install(tmp_path, calls, "bash", "sh")
    assert out.returncode == 0
    assert not calls.exists()
    assert out.stdout == "== apt: bash sh already present\n"


def test_ci_run_installs_pgbouncer_and_prometheus_through_it() -> None:
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith(".ci/apt-install "))
    assert {"postgresql", "pgbouncer", "prometheus", "chromium"} <= set(line.split()[1:])
    assert "apt-get" not in text  # every apt call goes through .ci/apt-install


def test_the_real_agent_install_says_what_how_big_and_where(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "tests" / "real_agents"))
    try:
        import install
    finally:
        sys.path.pop(0)
    bin_dir = tmp_path / "bin"
    # A fake npm that "installs" each package@version it is given under --prefix.
    fake(
        bin_dir,
        "npm",
        'prefix=""; pkgs=()\n'
        'while [ $# -gt 0 ]; do case "$1" in --prefix) prefix=$2; shift 2;; -*) shift;;'
        ' install) shift;; *) pkgs+=("$1"); shift;; esac; done\n'
        'for p in "${pkgs[@]}"; do name=${p%@*}; version=${p##*@}\n'
        '  mkdir -p "$prefix/node_modules/$name" "$prefix/node_modules/.bin"\n'
        '  echo "{\\"version\\": \\"$version\\"}" > "$prefix/node_modules/$name/package.json"\n'
        '  head -c 3000000 /dev/zero > "$prefix/node_modules/$name/blob"\n'
        "done\n"
        f"for exe in {' '.join(install.EXECUTABLES.values())}; do"
        ' touch "$prefix/node_modules/.bin/$exe"; done\n',
    )
    node = shutil.which("node") or "/bin/true"
    fake(bin_dir, "node", f'exec {node} "$@"\n')
    cache = tmp_path / "cache"
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    env.pop("DESKD_REAL_AGENTS", None)
    out = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "real_agents" / "install.py"), str(cache)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    first, last = out.stdout.strip().splitlines()
    assert first.startswith("real agents: installing @anthropic-ai/claude-code@")
    assert str(cache) in first and "GB" in first
    # One line says how much (the figure README states, held by tests/docs) and how to skip.
    assert install.APPROX_SIZE in first and "DESKD_REAL_AGENTS=0 skips it" in first
    assert "claude" in last and "codex" in last and "gemini" in last and "opencode" in last
    assert f"installed in {cache / 'node_modules' / '.bin'} (12 MB on disk)" in last
    again = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "real_agents" / "install.py"), str(cache)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "already installed" in again.stdout and "installing" not in again.stdout
