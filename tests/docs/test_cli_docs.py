"""Docs drift is a bug (lesson 45): every command has help with examples and is in
docs/cli.md, and every `deskd …` line quoted in the docs names a command and options
that exist."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from deskd.cli.main import COMMANDS, cli

ROOT = Path(__file__).resolve().parents[2]
QUOTING_DOCS = [
    "README.md",
    "skills/agent-orchestration/SKILL.md",
    "docs/cli.md",
    "docs/architecture.md",
    "docs/contract.md",
    "docs/own-agent.md",
    "docs/probes.md",
]


def walk(command: click.Command, path: tuple[str, ...]) -> Iterator[tuple[str, click.Command]]:
    """The command at ``path`` and every subcommand below it."""
    yield " ".join(path), command
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None, f"deskd {' '.join((*path, name))} is listed but not found"
            yield from walk(sub, (*path, name))


def tree(name: str) -> list[tuple[str, click.Command]]:
    """A top-level command (imported lazily, as `deskd NAME` would) and its subcommands."""
    command = cli.get_command(click.Context(cli), name)
    assert command is not None, f"deskd {name}: registered in COMMANDS but not importable"
    return list(walk(command, (name,)))


def test_the_root_lists_exactly_the_registry() -> None:
    assert cli.list_commands(click.Context(cli)) == list(COMMANDS)


def test_the_root_help_has_examples() -> None:
    assert "Examples:" in (cli.help or "")


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_has_help_with_examples(name: str) -> None:
    for path, command in tree(name):
        text = command.help or ""
        assert text.strip(), f"deskd {path} has no help text"
        assert "Examples:" in text, f"deskd {path}: help has no Examples block"
        examples = text.split("Examples:", 1)[1]
        assert f"deskd {path}" in examples, f"deskd {path}: no example runs the command itself"


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_is_in_docs_cli_md(name: str) -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for path, _ in tree(name):
        assert re.search(rf"`deskd {re.escape(path)}(?![\w-])", text), (
            f"`deskd {path}` is not documented in docs/cli.md"
        )


def quoted_command_lines(text: str) -> Iterator[str]:
    """`deskd …` lines in fenced code blocks and inline code spans (prose is not checked)."""
    fenced = re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S)
    for block in fenced:
        for line in block.splitlines():
            yield from _deskd_calls(line)
    without_fences = re.sub(r"```.*?```", "", text, flags=re.S)
    for span in re.findall(r"`([^`\n]+)`", without_fences):
        yield from _deskd_calls(span)


def _deskd_calls(line: str) -> Iterator[str]:
    line = line.split(" #", 1)[0]
    for part in re.split(r"\s*(?:\|\||&&|;|\s/\s)\s*", line):
        match = re.search(r"(?:^|[\s$(=])deskd\s+(.*)$", part)
        if match:
            yield match.group(1).strip()


def resolve(words: list[str]) -> tuple[str, click.Command]:
    """The command a `deskd WORDS` line runs: (its path, the click command)."""
    command: click.Command = cli
    path: list[str] = []
    for word in words:
        if not isinstance(command, click.Group) or word.startswith("-"):
            break
        sub = command.get_command(click.Context(command), word)
        if sub is None:
            if command is cli:
                raise AssertionError(f"`deskd {' '.join(words)}`: no command {word!r}")
            break
        command = sub
        path.append(word)
    return " ".join(path), command


def options_of(command: click.Command) -> set[str]:
    names = {"--help", "-h"}
    for param in command.params:
        names.update(getattr(param, "opts", []))
        names.update(getattr(param, "secondary_opts", []))
    return names


def lines_in_docs() -> list[tuple[str, str]]:
    found = []
    for doc in QUOTING_DOCS:
        path = ROOT / doc
        if path.exists():
            found.extend((doc, line) for line in quoted_command_lines(path.read_text()))
    return found


def test_the_docs_quote_commands() -> None:
    docs = {doc for doc, _ in lines_in_docs()}
    assert docs == set(QUOTING_DOCS)


@pytest.mark.parametrize(("doc", "line"), lines_in_docs())
def test_every_quoted_command_exists_with_its_options(doc: str, line: str) -> None:
    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    tokens = [w.strip("[]()|,`'\"…") for w in words]
    path, command = resolve([t for t in tokens if t])
    assert path, f"{doc}: `deskd {line}` names no command"
    known = options_of(command)
    for token in tokens:
        if token.startswith("--"):
            option = token.split("=", 1)[0]
            assert option in known, f"{doc}: `deskd {line}`: deskd {path} has no {option}"


def test_the_checker_catches_a_removed_command_and_option() -> None:
    with pytest.raises(AssertionError):
        resolve(["wakeup", "--role", "alpha"])
    _, command = resolve(["inbox", "ack", "--seen"])
    assert "--seen" in options_of(command)
    assert "--sen" not in options_of(command)
