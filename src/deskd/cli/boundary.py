"""The error boundary every command runs inside (``cli.common.DeskdGroup``).

A refusal (``DeskdError``) keeps its own exit code; any database error (``StoreError``) is exit 3 naming the
database and ``deskd doctor``. When SQLite reports the file itself damaged, mid-query as well
as at open, the damage is remembered in ``run/damaged`` so that every later command refuses
before opening the file (``deskd.service.desk.context``): nothing more is written into it.
"""

from __future__ import annotations

from collections.abc import Sequence

from deskd.errors import DeskdError, StoreError


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
