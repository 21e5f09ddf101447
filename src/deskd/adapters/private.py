"""Folders and files only the desk's user may read: 0700 and 0600, whatever the umask.

The database, logs (agent transcripts carry prompts and item text) and run/ live here.
Standard library only: the session hook appends to its log through ``append_private``.
"""

from __future__ import annotations

import os
from typing import IO, Any

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: str | os.PathLike[str]) -> None:
    """Create ``path`` and any missing parents 0700 (``os.makedirs`` gives the mode to the
    last folder only). Existing folders keep their mode (``deskd doctor`` reports it)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return
    parent = os.path.dirname(os.path.abspath(path))
    if parent != path and not os.path.isdir(parent):
        private_dir(parent)
    try:
        os.mkdir(path, DIR_MODE)
    except FileExistsError:
        return
    os.chmod(path, DIR_MODE)  # the umask may have taken bits from mkdir's mode


def open_private(
    path: str | os.PathLike[str], mode: str = "a", encoding: str | None = None
) -> IO[Any]:
    """``open(path, mode)`` for appending or writing, creating the file 0600."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if "a" in mode else os.O_TRUNC)
    fd = os.open(path, flags, FILE_MODE)
    return os.fdopen(fd, mode, encoding=encoding)


def private_key_file(path: str | os.PathLike[str]) -> bytes:
    """The random key kept in ``path`` (32 bytes, 0600): made on first use and kept, so a
    restart keeps what it signed valid; deleting the file voids all of it. Two processes
    making it at once agree: the new file is linked into place only where none is, and the
    loser reads the winner's."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as existing:
            value = existing.read()
        if len(value) >= 32:
            return value
    except FileNotFoundError:
        value = b""
    private_dir(os.path.dirname(os.path.abspath(path)))
    tmp = f"{path}.{os.getpid()}.tmp"
    with open_private(tmp, "wb") as new:
        new.write(os.urandom(32))
    try:
        if value:  # a short (damaged) key is replaced
            os.replace(tmp, path)
        else:
            os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    with open(path, "rb") as existing:
        return existing.read()
