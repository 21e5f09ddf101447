"""docs/operations.md quotes only commands and options that exist (lesson 45), and names the
scheduling pieces the way the code does."""

from __future__ import annotations

import importlib.util
import shlex
import sys
from pathlib import Path
from types import ModuleType

import pytest

from deskd.schedule import service as scheduling

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "operations.md"


def docs_checker() -> ModuleType:
    """tests/docs/test_cli_docs.py's parser, reused (tests/ is not a package)."""
    path = ROOT / "tests" / "docs" / "test_cli_docs.py"
    spec = importlib.util.spec_from_file_location("_cli_docs_checker", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


CHECKER = docs_checker()
LINES = list(CHECKER.quoted_command_lines(DOC.read_text("utf-8")))


def test_the_doc_quotes_the_scheduling_commands() -> None:
    joined = "\n".join(LINES)
    for needed in ("cron-line", "timer install", "timer print", "prune --older-than", "doctor"):
        assert needed in joined, needed


@pytest.mark.parametrize("line", LINES)
def test_every_quoted_command_exists_with_its_options(line: str) -> None:
    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    tokens = [w.strip("[]()|,`'\"…") for w in words]
    path, command = CHECKER.resolve([t for t in tokens if t])
    assert path, f"`deskd {line}` names no command"
    known = CHECKER.options_of(command)
    for token in tokens:
        if token.startswith("--"):
            assert token.split("=", 1)[0] in known, f"`deskd {line}`: no {token} on deskd {path}"


def test_the_doc_names_the_files_and_settings_the_code_uses() -> None:
    text = DOC.read_text("utf-8")
    for name in (scheduling.DRIVER, scheduling.SERVICE, scheduling.TIMER):
        assert name in text
    for setting in ("OnCalendar=minutely", "Persistent=true", "DESKD_WAKE_EXECUTE=1", "DESKD_BIN"):
        assert setting in text
    assert "Who watches the watcher" in text and "DESKD_TICK_PING_URL" in text
