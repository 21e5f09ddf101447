"""What every command shares: ``--json``, output, the desk context, and error mapping.

A refusal prints one ``deskd: …`` line (or ``{"error": {...}}`` with ``--json``) to stderr
and exits with the error's code: 1 refused, 2 usage (click's own), 3 unavailable.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import click

from deskd.cli import agent_commands, output
from deskd.cli.boundary import check_arguments, refusal
from deskd.errors import DeskdError
from deskd.ids import MAX_INT, parse_int

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
        except (DeskdError, OSError) as exc:
            # Corruption found mid-query, a locked or read-only file: exit 3, never a traceback
            # (deskd.cli.boundary).
            refused = refusal(exc)
            if refused is None:
                raise
            _refuse(ctx, refused)


def _protected_args(ctx: click.Context) -> list[str]:
    """The subcommand and its arguments, which click 8.2+ keeps apart from ``ctx.args`` (and
    deprecates reading; click 9 folds them into ``ctx.args``)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return list(getattr(ctx, "protected_args", ()))


def _refuse(ctx: click.Context, exc: DeskdError) -> None:
    ctx.exit(output.refuse(exc, bool(ctx.meta.get(_JSON_KEY))))


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


emit = output.emit
emit_table = output.emit_table
table = output.table
desk_context = agent_commands.desk_context
on_desk = agent_commands.on_desk


def runs(body: Callable[..., None]) -> Callable[[Callable[[], None]], Callable[..., None]]:
    """The click command declared on the decorated stub (its docstring is the help) runs
    ``body``, a function of ``deskd.cli.agent_commands`` taking exactly the declared
    parameters. A group (``deskd status``) runs its body only when no subcommand follows."""

    def command(stub: Callable[[], None]) -> Callable[..., None]:
        def callback(**params: Any) -> None:
            ctx = click.get_current_context()
            if getattr(ctx, "invoked_subcommand", None) is None:
                body(**params)

        functools.update_wrapper(callback, stub)  # click's name and help: the stub's
        callback.__wrapped__ = body  # type: ignore[attr-defined]
        return callback

    return command


def _parse(value: Any, param: click.Parameter | None, **bounds: int) -> int:
    """``value`` parsed by ``deskd.ids``, refused naming ``param`` (an int given is kept)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(param, click.Option):
        return parse_int(value, max(param.opts, key=len), **bounds)
    return parse_int(value, param.human_readable_name if param is not None else "value", **bounds)


class Id(click.ParamType):  # type: ignore[type-arg]
    """A database id, parsed by ``deskd.ids``: a bad one is a refusal (exit 1) naming the
    option and the range, not click's usage error."""

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        return _parse(value, param)


class Number(click.IntRange):
    """A count within ``low``..``high`` (click shows the range in help), parsed like ``Id``."""

    def __init__(self, low: int, high: int = MAX_INT) -> None:
        super().__init__(low, high)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        return _parse(value, param, low=int(self.min or 0), high=int(self.max or 0))


ID = Id()
