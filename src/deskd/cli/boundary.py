"""The error boundary every command runs inside: click's commands (``DeskdGroup``) and the
fast dispatch (``deskd.cli.fast``) alike, so both paths answer a failure the same way. Stdlib
only: the fast dispatch imports it on every hot command.

A refusal (``DeskdError``) keeps its own exit code; any database error is exit 3 naming the
database and ``deskd doctor``. When SQLite reports the file itself damaged, mid-query as well
as at open, the damage is remembered in ``run/damaged`` so that every later command refuses
before opening the file (``deskd.service.desk.context``): nothing more is written into it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from deskd.errors import DeskdError


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


def refusal(exc: BaseException) -> DeskdError | None:
    """The refusal ``exc`` stands for (None: not one deskd answers; let it raise)."""
    if isinstance(exc, DeskdError):
        return exc
    if not isinstance(exc, sqlite3.Error):
        return None
    from deskd import paths
    from deskd.errors import database_unavailable
    from deskd.store.db import is_corruption, is_url, note_damage, redact

    target = paths.db_file_str()
    if is_corruption(exc) and not is_url(target):
        import os

        note_damage(os.path.join(paths.home_str(), "run"), target, str(exc))
    return database_unavailable(redact(target), exc)
