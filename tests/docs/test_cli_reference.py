"""docs/cli.md's usage and options are generated from the click commands themselves
(scripts/cli_docs.py), so they cannot disagree with `--help`: this fails when the file
differs from what the script would write. Fix: `make docs`."""

from __future__ import annotations

import re
from pathlib import Path

from cli_tree import generator

ROOT = Path(__file__).resolve().parents[2]


def test_docs_cli_md_is_what_the_generator_writes() -> None:
    gen = generator()
    current = gen.CLI_MD.read_text(encoding="utf-8")
    wanted, missing = gen.render(current)
    assert not missing, f"docs/cli.md has no section for: {', '.join(missing)}"
    assert wanted == current, "docs/cli.md is stale: run `make docs`"


def test_a_block_shows_what_help_shows() -> None:
    from click.testing import CliRunner

    from deskd.cli.main import cli

    gen = generator()
    shown = CliRunner().invoke(cli, ["inbox", "enqueue", "--help"]).output
    options = re.split(r"(?:-h, )?--help\s", shown.split("Options:", 1)[1])[0]
    block = {p: gen.render_block(p, c, x) for p, c, x in gen.commands()}["inbox enqueue"]
    assert " ".join(options.split()) in " ".join(block.split())  # the same words, any width


def test_a_changed_option_makes_the_file_stale() -> None:
    gen = generator()
    current = gen.CLI_MD.read_text(encoding="utf-8")
    tampered = current.replace("--dedup-key TEXT", "--dedupe-key TEXT", 1)
    assert tampered != current
    assert gen.render(tampered)[0] == current  # the generator puts the truth back


def test_a_command_without_a_section_is_reported() -> None:
    gen = generator()
    current = gen.CLI_MD.read_text(encoding="utf-8")
    without = current.replace("### `deskd wake ack`", "### wake ack, by hand", 1)
    assert "wake ack" in gen.render(without)[1]
