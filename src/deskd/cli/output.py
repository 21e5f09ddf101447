"""Output every command shares: JSON or a sentence, tables, refusals (colour through
click, on a terminal only)."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import click

from deskd.errors import DeskdError
from deskd.quoting import visible

__all__ = ["cells", "echo", "emit", "emit_table", "refuse", "secho", "style", "table"]

_OWN_CODES = re.compile(r"(\x1b\[(?:3[123]|[01])m)")
"""The colour codes ``style`` writes, and only those, pass ``echo`` on a terminal."""


def echo(text: str = "", *, err: bool = False, raw: bool = False) -> None:
    """``click.echo`` with every control and line-separator character in ``text`` but ``\\n``
    shown as its escape (``quoting.visible``), so a title cannot clear the screen or start a
    line; ``raw`` (JSON, which keeps the exact text) prints it as it is."""
    if not raw and not text.isprintable():
        isatty = getattr(sys.stderr if err else sys.stdout, "isatty", None)
        parts = _OWN_CODES.split(text) if isatty is not None and isatty() else [text]
        text = "".join(
            p if i % 2 else "\n".join(map(visible, p.split("\n"))) for i, p in enumerate(parts)
        )
    click.echo(text, err=err)


def style(text: str, **styles: Any) -> str:
    """``click.style`` on a terminal; plain off one and under ``NO_COLOR`` (no-color.org), so
    ``echo`` shows any other escape code in the text as text."""
    isatty = getattr(sys.stdout, "isatty", None)
    plain = os.environ.get("NO_COLOR") or isatty is None or not isatty()
    return text if plain else click.style(text, **styles)


def secho(text: str, **styles: Any) -> None:
    echo(style(text, **styles))


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
    cells = [  # a cell is one line: a title's own line breaks show as \n (quoting.visible)
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


def cells(
    rows: Sequence[Mapping[str, Any]],
    keys: str,
    *,
    missing: str = "",
    **computed: Callable[[Mapping[str, Any]], Any],
) -> list[tuple[Any, ...]]:
    """A ``table``'s rows from JSON rows: each row's values under ``keys`` (names separated
    by spaces), in order, or a ``computed`` key's function of the row; a list joined by
    commas, ``missing`` for None or an empty list."""

    def cell(row: Mapping[str, Any], key: str) -> Any:
        value = computed[key](row) if key in computed else row[key]
        if value is None or value == []:
            return missing
        return ",".join(map(str, value)) if isinstance(value, list) else value

    return [tuple(cell(row, key) for key in keys.split()) for row in rows]


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
