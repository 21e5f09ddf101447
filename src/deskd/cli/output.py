"""Output every command shares, without click: lines, JSON, tables, refusals. Stdlib only.

The console script (``deskd.cli.entry``) runs agent-facing commands without click, so what
they print goes through here; click's commands use the same functions (``cli/common.py``),
so both paths print the same bytes. Like ``click.echo``, text goes to the current
``sys.stdout``/``sys.stderr`` (a test runner's capture included) and bold is used only on a
terminal.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from deskd.errors import DeskdError


def echo(text: str = "", *, err: bool = False) -> None:
    stream = sys.stderr if err else sys.stdout
    stream.write(f"{text}\n")
    stream.flush()


# click.style's codes for the colours deskd uses; like click.echo, none off a terminal.
_COLOURS = {"red": 31, "green": 32, "yellow": 33}


def style(text: str, *, fg: str | None = None, bold: bool = False) -> str:
    """``text`` coloured and/or bold on a terminal (click.style's codes); plain otherwise."""
    isatty = getattr(sys.stdout, "isatty", None)
    if isatty is None or not isatty() or (fg is None and not bold):
        return text
    codes = ([f"\x1b[{_COLOURS[fg]}m"] if fg else []) + (["\x1b[1m"] if bold else [])
    return "".join(codes) + text + "\x1b[0m"


def secho(text: str, *, fg: str | None = None, bold: bool = False) -> None:
    echo(style(text, fg=fg, bold=bold))


def emit(data: Any, as_json: bool, human: Callable[[], None] | str | None = None) -> None:
    """Print ``data`` as JSON, or the readable form (a callable printing it, or a sentence)."""
    if as_json:
        echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
        return
    if callable(human):
        human()
    elif human is not None:
        echo(human)


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> None:
    """A plain left-aligned table; an empty table prints nothing."""
    if not rows:
        return
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for index, row in enumerate(cells):
        line = "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        echo(style(line, bold=True) if index == 0 else line)


def refuse(exc: DeskdError, as_json: bool) -> int:
    """Print a refusal as the contract says (one line, or ``{"error"}`` JSON) on stderr."""
    if as_json:
        echo(json.dumps({"error": {"code": exc.code, "message": exc.message}}), err=True)
    else:
        echo(f"deskd: {exc.message}", err=True)
    return exc.exit_code
