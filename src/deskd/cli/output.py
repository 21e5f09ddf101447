"""Output every command shares, without click: lines, JSON, tables, refusals. Stdlib only.

The console script (``deskd.cli.entry``) runs agent-facing commands without click, so what
they print goes through here; click's commands use the same functions (``cli/common.py``),
so both paths print the same bytes. Like ``click.echo``, text goes to the current
``sys.stdout``/``sys.stderr`` (a test runner's capture included) and bold is used only on a
terminal.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from deskd.core.text import visible
from deskd.errors import DeskdError

_OWN_CODES = re.compile(r"(\x1b\[(?:3[123]|[01])m)")
"""The colour codes ``style`` writes, and only those, pass ``echo`` on a terminal."""


def echo(text: str = "", *, err: bool = False, raw: bool = False) -> None:
    """Print ``text`` and a newline. Every control and line-separator character in it but
    ``\\n`` is shown as its escape (``core.text.visible``), so a title cannot clear the
    screen or start a line; ``raw`` (JSON, which keeps the exact text) prints it as it is."""
    stream = sys.stderr if err else sys.stdout
    if not raw and not text.isprintable():
        isatty = getattr(stream, "isatty", None)
        parts = _OWN_CODES.split(text) if isatty is not None and isatty() else [text]
        text = "".join(
            p if i % 2 else "\n".join(map(visible, p.split("\n"))) for i, p in enumerate(parts)
        )
    stream.write(f"{text}\n")
    stream.flush()


# click.style's codes for the colours deskd uses; like click.echo, none off a terminal.
_COLOURS = {"red": 31, "green": 32, "yellow": 33}


def style(text: str, *, fg: str | None = None, bold: bool = False) -> str:
    """``text`` coloured and/or bold on a terminal (click.style's codes); plain otherwise,
    and under ``NO_COLOR`` (no-color.org)."""
    isatty = getattr(sys.stdout, "isatty", None)
    if isatty is None or not isatty() or (fg is None and not bold) or os.environ.get("NO_COLOR"):
        return text
    codes = ([f"\x1b[{_COLOURS[fg]}m"] if fg else []) + (["\x1b[1m"] if bold else [])
    return "".join(codes) + text + "\x1b[0m"


def secho(text: str, *, fg: str | None = None, bold: bool = False) -> None:
    echo(style(text, fg=fg, bold=bold))


def emit(data: Any, as_json: bool, human: Callable[[], None] | str | None = None) -> None:
    """Print ``data`` as JSON, or the readable form (a callable printing it, or a sentence)."""
    if as_json:
        echo(json.dumps(data, indent=2, ensure_ascii=False, default=str), raw=True)
        return
    if callable(human):
        human()
    elif human is not None:
        echo(human)


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str], *, empty: str = "") -> None:
    """A left-aligned table; with no rows, the ``empty`` line instead (if any). A cell is a
    value (None prints nothing) or ``(text, colour)``, coloured on a terminal only; widths
    are measured unstyled, and the last column is not padded (a colour would keep spaces)."""
    if not rows:
        if empty:
            echo(empty)
        return
    cells = [  # a cell is one line: a title's own line breaks show as \n (core.text.visible)
        [(visible(c[0]), c[1]) if isinstance(c, tuple) else (visible(str(c)), None) for c in row]
        for row in [["" if c is None else c for c in row] for row in rows]
    ]
    widths = [max(len(h), *(len(row[i][0]) for row in cells)) for i, h in enumerate(headers)]
    head = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    echo(style(head.rstrip(), bold=True))
    last = len(headers) - 1
    for row in cells:
        line = []
        for index, ((text, colour), width) in enumerate(zip(row, widths, strict=True)):
            padded = text if index == last else text.ljust(width)
            line.append(style(padded, fg=colour) if colour else padded)
        echo("  ".join(line).rstrip())


def emit_table(
    data: Any,
    as_json: bool,
    rows: Sequence[Sequence[Any]],
    headers: Sequence[str],
    *,
    empty: str = "",
) -> None:
    """``data`` as JSON, or ``rows`` as a ``table``: what a listing prints."""
    emit(data, as_json, lambda: table(rows, headers, empty=empty))


def refuse(exc: DeskdError, as_json: bool) -> int:
    """Print a refusal as the contract says (one line, or ``{"error"}`` JSON) on stderr."""
    if as_json:
        echo(json.dumps({"error": {"code": exc.code, "message": exc.message}}), err=True)
    else:
        echo(f"deskd: {exc.message}", err=True)
    return exc.exit_code
