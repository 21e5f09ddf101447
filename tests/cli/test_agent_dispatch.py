"""The console script's parser (deskd.cli.entry) runs what click declares for the agent-facing
commands, prints what click prints, and hands every other command line to click (help and
usage errors unchanged). That the parameter table is click's declaration, and only that:
tests/cli/test_agent_params.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cli_tree import command_at
from conftest import DESK_TOML
from deskd.cli import entry
from deskd.cli.agent_params import PARAMS

PLAIN = [
    ["inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x"],
    ["inbox", "list", "--for=alpha", "--limit", "5", "--all"],
    ["inbox", "ack", "--id", "3", "--id", "4,5", "--for", "alpha"],
    ["send", "--to", "beta", "--to", "gamma", "--subject", "s", "--body", "b", "--json"],
    ["task", "update", "12", "--note", "n", "--note", "last wins"],
    ["meeting", "send", "3", "--body", "b", "--resolves", "4"],
    ["status", "--json"],
    ["tick", "--dry-run", "--execute", "--wait"],
    ["tick"],
]


def test_plain_command_lines_are_parsed_as_click_parses_them() -> None:
    for argv in PLAIN:
        parsed = entry.parse(argv)
        assert parsed is not None, argv
        _, values = parsed
        n = 2 if tuple(argv[:2]) in PARAMS else 1
        command = command_at(tuple(argv[:n]))
        ctx = command.make_context("deskd", argv[n:])
        assert values == ctx.params, argv


DECLINED = [
    ["inbox", "enqueue", "--help"],
    ["inbox", "enqueue", "-h"],
    ["inbox", "enqueue", "--for", "alpha", "--source", "alert"],  # --title missing
    ["inbox", "list", "--limit", "0"],
    ["inbox", "list", "--limit", "ten"],
    ["inbox", "list", "--limt", "5"],
    ["inbox", "list", "--for"],
    ["inbox", "list", "--for", "--all"],
    ["inbox", "list", "--all=yes"],
    ["inbox", "list", "--", "x"],
    ["inbox", "list", "extra"],
    ["task", "update", "--note", "n"],
    ["task", "update", "-3", "--note", "n"],
    ["task", "update", "١٢", "--note", "n"],
    ["inbox"],
    ["--version"],
    ["status", "end", "--role", "alpha"],
    ["status", "--role", "alpha"],
    ["tick", "--execute=1"],
]


@pytest.mark.parametrize("argv", DECLINED, ids=" ".join)
def test_anything_else_goes_to_click(argv: list[str]) -> None:
    assert entry.parse(argv) is None


# -- the same bytes either way, as real processes ------------------------------------------

CLICK_ONLY = "import sys; from deskd.cli.main import main; sys.argv[0] = 'deskd'; main()"


def run(argv: list[str], home: Path, *, through_click: bool) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update({"DESKD_HOME": str(home), "DESKD_NOW": "2026-12-01T14:00:00Z"})
    entry = [sys.executable, "-c", CLICK_ONLY] if through_click else [sys.executable, "-m", "deskd"]
    proc = subprocess.run([*entry, *argv], env=env, capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


# Each line runs twice as a real process: kept to what differs between commands' output
# (a table, JSON, a refusal in both forms, the board, the tick).
SCRIPT = [
    ["inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk 91%"],
    ["inbox", "list", "--for", "alpha"],
    ["inbox", "ack", "--for", "alpha", "--id", "1", "--json"],
    ["inbox", "enqueue", "--for", "nobody", "--source", "alert", "--title", "x"],
    ["task", "update", "99", "--note", "n", "--json"],
    ["status"],
    ["tick", "--dry-run"],
    # The meeting, hook, board and tick bodies import their records where they build them.
    ["meeting", "call", "--by", "alpha", "--agenda", "a", "--attendees", "beta"],
    ["meeting", "send", "1", "--role", "alpha", "--body", "b", "--json"],
    ["meeting", "updates", "1", "--role", "beta"],
    ["hook", "add", "--for", "alpha", "--title", "t", "--every", "1h"],
    ["status", "--json"],
    ["tick", "--json"],
]


def test_both_paths_print_the_same_and_exit_the_same(tmp_path: Path) -> None:
    homes = {}
    for label in ("entry", "click"):
        homes[label] = tmp_path / label
        homes[label].mkdir()
        (homes[label] / "deskd.toml").write_text(DESK_TOML)

    def script(label: str) -> list[tuple[int, str, str]]:
        return [run(argv, homes[label], through_click=label == "click") for argv in SCRIPT]

    # The two desks are independent: each runs its script in order, both at once (the test
    # waits on processes, so the pair takes about the time of one).
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = dict(zip(homes, pool.map(script, homes), strict=True))
    for i, argv in enumerate(SCRIPT):
        ran = {label: runs[label][i] for label in homes}
        entry_out, click_out = (
            tuple(re.sub(r"msg-[0-9a-f]+", "msg-ID", str(v)).replace(str(homes[k]), "HOME")
                  for v in ran[k])
            for k in ("entry", "click")
        )  # fmt: skip
        assert entry_out == click_out, argv
