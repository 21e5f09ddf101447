"""What every command shares: its class (``--json``, Examples), the desk context, and the
error boundary: a refusal exits with its code as docs/contract.md says, any database error
(``StoreError``) with 3 naming the database and ``deskd doctor``. When SQLite reports the
file itself damaged, mid-query as well as at open, the damage is remembered in
``run/damaged`` so that every later command refuses before opening the file
(``deskd.service.desk.context``): nothing more is written into it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from contextlib import closing
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import click

from deskd.cli import output
from deskd.errors import DeskdError, StoreError
from deskd.ids import MAX_INT, parse_int

if TYPE_CHECKING:
    from deskd.service.desk.context import DeskContext

P = ParamSpec("P")
R = TypeVar("R")
_JSON_KEY = "deskd.json"


def _examples_as_written(text: str | None) -> str | None:
    """``text`` with its Examples paragraph marked (click's ``\\b``) to print as written."""
    return text and re.sub(r"^([ \t]*)Examples:$", "\\1\b\n\\1Examples:", text, flags=re.M)


class Command(click.Command):
    """A deskd command: ``--json`` unless ``json=False`` (a command with no report: README
    lists them), and its help's Examples printed line by line."""

    def __init__(self, *args: Any, json: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = _examples_as_written(self.help)
        if json:
            json_option(self)


class Group(click.Group):
    """A deskd group: its help's Examples printed line by line; its commands are ``Command``s."""

    command_class = Command

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = _examples_as_written(self.help)


class DeskdGroup(Group):
    """Maps DeskdError (and any database error) to the contract's exit codes."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            args = [*_protected_args(ctx), *ctx.args]
            if "--json" in args:  # a refusal before the command parsed its own --json
                ctx.meta[_JSON_KEY] = True
            check_arguments(args)
            return super().invoke(ctx)
        except (DeskdError, OSError) as exc:
            # Corruption found mid-query, a locked or read-only file: exit 3, never a traceback.
            refused = refusal(exc)
            if refused is None:
                raise
            ctx.exit(output.refuse(refused, bool(ctx.meta.get(_JSON_KEY))))


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
        name, value = option, arg
        if arg.startswith("--") and "=" in arg:
            name, _, value = arg.partition("=")
        check_text(name, value)
        if "\x00" in value:  # no file name, URL or text deskd keeps may hold one
            from deskd.errors import InvalidValue

            raise InvalidValue(name, value[:40].replace("\x00", "\\0"), "no NUL characters")
        option = "argument" if "=" in arg or not arg.startswith("--") else arg


_UNAVAILABLE_ERRNOS = frozenset(("ENOSPC", "EDQUOT", "EIO", "EROFS", "EMFILE", "ENFILE"))


def refusal(exc: BaseException) -> DeskdError | None:
    """The refusal ``exc`` stands for (None: not one deskd answers; let it raise)."""
    if isinstance(exc, StoreError):
        return _store_failed(exc)
    if isinstance(exc, DeskdError):
        return exc
    if isinstance(exc, OSError) and not isinstance(exc, ConnectionError):
        # A file the command was told to use (a name too long, a folder that is not there):
        # the user's to fix, exit 1; a full or failing disk is exit 3 like the database.
        import errno

        from deskd.errors import FileRefused, Unavailable

        where = f"{exc.filename}: " if exc.filename else ""
        said = f"{where}{exc.strerror or exc}"
        if errno.errorcode.get(exc.errno or 0) in _UNAVAILABLE_ERRNOS:
            return Unavailable(said)
        return FileRefused(said)
    return None


def _store_failed(exc: StoreError) -> DeskdError:
    """A database error as exit 3 naming the database; damage is remembered."""
    from deskd import paths
    from deskd.errors import database_unavailable
    from deskd.store.db import is_corruption, is_url, note_damage, redact

    target = paths.db_file_str()
    if is_corruption(exc) and not is_url(target):
        import os

        note_damage(os.path.join(paths.home_str(), "run"), target, str(exc))
    return database_unavailable(redact(target), exc)


def _set_json(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    if value:
        ctx.meta[_JSON_KEY] = True
    return value


json_option = click.option(
    "--json",
    "as_json",
    is_flag=True,
    is_eager=True,  # parsed first, so a refusal of any other value is JSON too
    callback=_set_json,
    help="Print exactly one JSON document on stdout.",
)


def desk_context() -> closing[DeskContext]:
    """The DeskContext for this command, closed afterwards."""
    from deskd.service.desk.context import open_context

    return closing(open_context())


def on_desk(service: Callable[Concatenate[DeskContext, P], R], *args: P.args, **kw: P.kwargs) -> R:
    """``service(ctx, *args, **kw)`` on this command's DeskContext, closed afterwards."""
    with desk_context() as ctx:
        return service(ctx, *args, **kw)


def acting(ctx: DeskContext, flag: str, value: str | None) -> str:
    """The role the command acts as (``service.desk.identity.acting_role``)."""
    from deskd.service.desk.identity import acting_role

    return acting_role(ctx, flag, value)


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
