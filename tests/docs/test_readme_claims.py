"""Issue 37's first-contact claims, held through the public surface: README's list of the
commands without ``--json``, its size figure for the real CLIs, its completion install lines,
and one cap (and one kind of refusal) for every free-text title."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from conftest import Desk

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BIN = Path(sys.executable).parent


def leaf_commands(command: click.Command, path: str = "") -> Iterator[tuple[str, click.Command]]:
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None
            yield from leaf_commands(sub, f"{path} {name}".strip())
    else:
        yield path, command


def test_every_command_has_json_but_the_exceptions_readme_lists() -> None:
    from deskd.cli.main import cli

    listed = re.search(r"`--json` for exactly one JSON document \(not (.+?), which", README, re.S)
    assert listed, "README no longer lists the commands without --json"
    exceptions = set(re.findall(r"`([a-z-]+)`", listed.group(1)))
    without = {
        path
        for path, command in leaf_commands(cli)
        if not any("--json" in p.opts for p in command.params)
    }
    assert without == exceptions, (sorted(without - exceptions), sorted(exceptions - without))


def test_readmes_size_for_the_real_clis_is_the_one_install_py_prints() -> None:
    sys.path.insert(0, str(ROOT / "tests" / "real_agents"))
    try:
        import install
    finally:
        sys.path.pop(0)
    figure = re.search(r"about [\d.]+ GB", install.APPROX_SIZE)
    assert figure, install.APPROX_SIZE
    assert f"{figure.group(0)} downloaded from npm" in " ".join(README.split())
    assert len(re.findall(r"[\d.]+ GB", README)) == 1  # no second, stale figure


def completion_lines() -> dict[str, str]:
    """README's completion install lines, verbatim (joined where markdown wraps them)."""
    text = " ".join(README.split())
    start = text.index("Shell completion, once per shell:")
    spans = re.findall(r"`([^`]+)`", text[start : text.index("TAB then completes", start)])
    return {
        shell: next(s for s in spans if f"completion {shell} >" in s) for shell in ("bash", "fish")
    }


@pytest.mark.parametrize("shell", ["bash", "fish"])
def test_readmes_completion_lines_work_in_an_empty_home(tmp_path: Path, shell: str) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    line = completion_lines()[shell]
    assert line.startswith("mkdir -p "), line
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "PATH": f"{BIN}:/usr/bin:/bin"}
    done = subprocess.run(
        [shell, "-c", line], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    target = home / line.rsplit("> ", 1)[1].removeprefix("~/")
    assert "deskd" in target.read_text(encoding="utf-8"), target


CAP = 500
TITLE = "t" * (CAP + 1)


@pytest.mark.parametrize(
    ("what", "args"),
    [
        ("item", ("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", TITLE)),
        ("task", ("task", "add", TITLE, "--for", "alpha")),
        ("hook", ("hook", "add", "--for", "alpha", "--title", TITLE, "--every", "1h")),
        ("agenda", ("meeting", "call", "--by", "alpha", "--agenda", TITLE, "--attendees", "beta")),
        ("question", ("ask", TITLE, "--from", "alpha")),
        ("page", ("page", "--title", TITLE, "--from", "alpha")),
    ],
)
def test_every_free_text_title_has_one_cap_and_one_refusal(
    desk: Desk, what: str, args: tuple[str, ...]
) -> None:
    before = desk.json("ledger")
    out = desk.run(*args, "--json")
    assert out.exit_code == 1, (what, out.exit_code, out.stdout[:200])
    assert out.error()["code"] == "invalid_value", out.stderr
    assert f"at most {CAP} characters" in out.error()["message"], out.stderr
    assert desk.json("ledger") == before
    at_cap = tuple(a if a != TITLE else "t" * CAP for a in args)
    fits = desk.run(*at_cap, "--json")
    assert f"at most {CAP} characters" not in fits.stderr, (what, fits.stderr)
