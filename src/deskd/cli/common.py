"""What every command shares: ``--json``, output, the desk context, and error mapping.

A refusal prints one ``deskd: …`` line (or ``{"error": {...}}`` with ``--json``) to stderr
and exits with the error's code: 1 refused, 2 usage (click's own), 3 unavailable.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import click

from deskd.cli import out
from deskd.errors import DeskdError, InvalidValue

F = TypeVar("F", bound=Callable[..., Any])
_JSON_KEY = "deskd.json"


class DeskdGroup(click.Group):
    """Maps DeskdError (and any database error) to the contract's exit codes."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            args = [*_protected_args(ctx), *ctx.args]
            if "--json" in args:  # a refusal before the command parsed its own --json
                ctx.meta[_JSON_KEY] = True
            check_arguments(args)
            return super().invoke(ctx)
        except DeskdError as exc:
            _refuse(ctx, exc)
        except sqlite3.DatabaseError as exc:
            # Corruption found mid-query, a locked or read-only file: exit 3, never a traceback.
            from deskd.errors import database_unavailable
            from deskd.paths import db_file_str

            _refuse(ctx, database_unavailable(db_file_str(), exc))


def _protected_args(ctx: click.Context) -> list[str]:
    """The subcommand and its arguments, which click 8.2+ keeps apart from ``ctx.args`` (and
    deprecates reading; click 9 folds them into ``ctx.args``)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return list(getattr(ctx, "protected_args", ()))


def check_arguments(args: Sequence[str]) -> None:
    """Every command-line value is storable text within its cap (``core.values.MAX_TEXT``),
    checked before any command runs: a refused value writes nothing."""
    from deskd.core.values import check_text

    option = "argument"
    for arg in args:
        if arg.startswith("--") and "=" in arg:
            name, _, value = arg.partition("=")
            check_text(name, value)
            option = "argument"
        else:
            check_text(option, arg)
            option = arg if arg.startswith("--") else "argument"


def _refuse(ctx: click.Context, exc: DeskdError) -> None:
    ctx.exit(out.refuse(exc, bool(ctx.meta.get(_JSON_KEY))))


def _set_json(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    if value:
        ctx.meta[_JSON_KEY] = True
    return value


def json_option(fn: F) -> F:
    """``--json``: exactly one JSON document on stdout."""
    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        is_eager=True,
        expose_value=True,
        callback=_set_json,
        help="Print exactly one JSON document on stdout.",
    )(fn)


# One implementation for click's commands and the fast dispatch (deskd.cli.out).
emit = out.emit
table = out.table


@contextmanager
def desk_context(*, require_desk: bool = True) -> Iterator[Any]:
    """The DeskContext for this command, closed afterwards."""
    from deskd.service.desk.context import open_context

    ctx = open_context(require_desk=require_desk)
    try:
        yield ctx
    finally:
        ctx.close()


def parse_ids(values: Sequence[str]) -> list[int]:
    """Item ids given as ``--id 3 --id 4`` or ``--id 3,4``."""
    ids: list[int] = []
    for value in values:
        for part in str(value).split(","):
            part = part.strip()
            if not part:
                continue
            if not part.isdigit():
                raise InvalidValue("id", part, "item ids are whole numbers")
            ids.append(int(part))
    return ids


def stderr(message: str) -> None:
    click.echo(message, err=True)


__all__ = [
    "DeskdGroup",
    "desk_context",
    "emit",
    "json_option",
    "parse_ids",
    "stderr",
    "table",
]
