"""Write each command's usage and options into docs/cli.md, from the click commands themselves.

Every command section of docs/cli.md is a heading ``### `deskd PATH` `` followed by a block
this script owns, between ``<!-- generated: deskd PATH -->`` and ``<!-- end generated -->``:
the synopsis, then the options exactly as ``deskd PATH --help`` prints them (a group lists
its commands). The prose around the blocks is written by hand. So the reference cannot
disagree with ``--help``: tests/docs/test_cli_reference.py fails when the file differs from
what this script would write.

    python scripts/cli_docs.py            # exit 1 and a diff when the file is stale
    python scripts/cli_docs.py --write    # rewrite it (``make docs``)

A heading for a command gets its block inserted the first time; a command with no heading
is reported (add ``### `deskd PATH` `` where it belongs, then run --write).
"""

from __future__ import annotations

import difflib
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[1]
CLI_MD = ROOT / "docs" / "cli.md"
WIDTH = 100  # the width `deskd --help` wraps at (max_content_width in deskd.cli.main)
HEADING = re.compile(r"^### `deskd ([a-z][a-z -]*[a-z])(?:[ \[(][^`]*)?`$")
BLOCK = re.compile(
    r"\n<!-- generated: deskd (?P<path>[a-z -]+) -->\n.*?\n<!-- end generated -->\n", flags=re.S
)


def commands() -> Iterator[tuple[str, click.Command, click.Context]]:
    """(path, command, its context) for every deskd command, in `deskd --help` order."""
    from deskd.cli.main import cli

    root = click.Context(cli, info_name="deskd", max_content_width=WIDTH)

    def walk(
        command: click.Command, ctx: click.Context, path: tuple[str, ...]
    ) -> Iterator[tuple[str, click.Command, click.Context]]:
        if path:
            yield " ".join(path), command, ctx
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None, f"deskd {' '.join((*path, name))} is listed but missing"
                yield from walk(sub, click.Context(sub, info_name=name, parent=ctx), (*path, name))

    yield from walk(cli, root, ())


def synopsis(path: str, command: click.Command, ctx: click.Context) -> str:
    """``deskd PATH ARG [--opt TEXT] …`` from the parameters click declares."""
    words = [f"deskd {path}"]
    for param in _params(command, ctx):
        if isinstance(param, click.Argument):
            word = param.make_metavar(ctx)
        else:
            record = param.get_help_record(ctx)
            if record is None:  # a hidden option
                continue
            word = record[0].split(", ")[-1]  # the long form: "-h, --help" -> "--help"
            if getattr(param, "multiple", False):
                word += " ..."
            if not param.required:
                word = f"[{word}]"
        words.append(word)
    if isinstance(command, click.Group):
        words.append("COMMAND")
    return " ".join(words)


def _params(command: click.Command, ctx: click.Context) -> list[click.Parameter]:
    """The command's parameters without --help (every command has it)."""
    helper = command.get_help_option(ctx)
    return [p for p in command.get_params(ctx) if p is not helper]


def render_block(path: str, command: click.Command, ctx: click.Context) -> str:
    formatter = click.HelpFormatter(width=WIDTH, max_width=WIDTH)
    records = [r for p in _params(command, ctx) if (r := p.get_help_record(ctx)) is not None]
    if records:
        with formatter.section("Options"):
            formatter.write_dl(records)
    if isinstance(command, click.Group):
        command.format_commands(ctx, formatter)
    body = formatter.getvalue().rstrip()
    lines = [
        f"<!-- generated: deskd {path} -->",
        "```text",
        synopsis(path, command, ctx),
    ]
    if body:
        lines += ["", *[line.rstrip() for line in body.splitlines()]]
    lines += ["```", "<!-- end generated -->"]
    return "\n".join(lines) + "\n"


def render(text: str) -> tuple[str, list[str]]:
    """docs/cli.md with every block rewritten, and the commands that have no heading."""
    known = {path: (command, ctx) for path, command, ctx in commands()}
    text = BLOCK.sub("\n", text)  # drop the old blocks; they are rewritten below
    out: list[str] = []
    seen: set[str] = set()
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        match = HEADING.match(line.rstrip("\n"))
        path = _longest_known(match.group(1), known) if match else None
        if path is None or path in seen:
            out.append(line)
            i += 1
            continue
        seen.add(path)
        out.append(f"### `deskd {path}`\n\n")
        out.append(render_block(path, *known[path]))
        i += 1
        while i < len(lines) and not lines[i].strip():  # one blank line after the block
            i += 1
        out.append("\n")
    # A group only needs a heading when it takes options of its own (``deskd status``).
    needed = [
        p
        for p, (command, ctx) in known.items()
        if not isinstance(command, click.Group) or _params(command, ctx)
    ]
    return "".join(out), [p for p in needed if p not in seen]


def _longest_known(words: str, known: dict[str, object]) -> str | None:
    parts = words.split()
    for end in range(len(parts), 0, -1):
        candidate = " ".join(parts[:end])
        if candidate in known:
            return candidate
    return None


def main(argv: list[str]) -> int:
    write = "--write" in argv[1:]
    current = CLI_MD.read_text(encoding="utf-8")
    wanted, missing = render(current)
    for path in missing:
        print(f"docs/cli.md: no heading for `deskd {path}` (add ### `deskd {path}`)")
    if wanted == current:
        return 1 if missing else 0
    if write:
        CLI_MD.write_text(wanted, encoding="utf-8")
        print("docs/cli.md: usage and options rewritten from the commands")
        return 1 if missing else 0
    sys.stdout.writelines(
        difflib.unified_diff(
            current.splitlines(keepends=True),
            wanted.splitlines(keepends=True),
            "docs/cli.md",
            "docs/cli.md (from the commands)",
        )
    )
    print("docs/cli.md is stale: run `make docs` (python scripts/cli_docs.py --write)")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
