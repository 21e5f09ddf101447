"""The click command tree and the script that documents it, for the tests that check one
against the other (docs/cli.md, the console script's parameter table, the two dispatches)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import click

ROOT = Path(__file__).resolve().parent.parent


def generator() -> ModuleType:
    """scripts/cli_docs.py, loaded as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("cli_docs", ROOT / "scripts" / "cli_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["cli_docs"] = module
    spec.loader.exec_module(module)
    return module


def command_at(path: tuple[str, ...]) -> click.Command:
    """The click command ``deskd PATH…`` names."""
    from deskd.cli.main import cli

    ctx = click.Context(cli)
    command: Any = cli
    for part in path:
        command = command.get_command(ctx, part)
    assert isinstance(command, click.Command), path
    return command
