"""The validated desk (and ``.env``'s ``DESKD_*`` values) kept under ``run/``, read with json.

Validating the desk file means importing pydantic, which costs a command more than its own
work. The first command after the file changes validates it (``deskd.config.desk_file``) and writes the
validated data to ``run/desk-cache.json``; later commands read it back with the standard
library. An entry is used only when all of these match what it was made from:

- deskd's version and the size and mtime of the modules that define the desk file's shape
  and the settings (``deskd/config/``: ``desk_file.py``, ``settings_model.py``,
  ``settings.py``, ``desk.py``): a changed model never reads an old entry;
- the desk file's path and its exact bytes. The bytes, not size and mtime: a same-size
  rewrite within the filesystem's timestamp granularity would keep a stale entry.

A cache that cannot be read or written is ignored (the command validates, as without one);
``deskd init`` and ``deskd doctor`` always validate. Stdlib only: floor 3 of deskd.config
(``deskd.config.load`` decides when to validate).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import deskd
from deskd.config.settings import DATABASES

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deskd.config.desk import Desk

CACHE_NAME = "desk-cache.json"


def _schema() -> str:
    """deskd's version and the fingerprint of the modules defining the desk's shape."""
    folder = os.path.join(os.path.dirname(deskd.__file__), "config")
    parts = [deskd.__version__]
    for name in ("desk_file.py", "settings_model.py", "settings.py", "desk.py"):
        try:
            st = os.stat(os.path.join(folder, name))
        except OSError:
            continue
        parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    return " ".join(parts)


def _cache_file(home: str | Path) -> str:
    return os.path.join(str(home), "run", CACHE_NAME)


def _read(home: str | Path) -> dict[str, Any]:
    try:
        with open(_cache_file(home), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("schema") == _schema() else {}


def _write(home: str | Path, section: str, entry: dict[str, Any]) -> None:
    """Replace one section atomically (write a temporary file, then rename)."""
    data = _read(home)
    data["schema"] = _schema()
    data[section] = entry
    path = _cache_file(home)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def text_of(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def cached_desk(home: str | Path, path: Path) -> Desk | None:
    """The desk validated from exactly this file's current bytes, or None (validate it)."""
    entry = _read(home).get("desk")
    if not isinstance(entry, dict) or entry.get("path") != str(path):
        return None
    text = text_of(str(path))
    if text is None or entry.get("text") != text:
        return None
    from deskd.config.desk import Desk

    return Desk(entry["data"], path=path)


def remember_desk(home: str | Path, desk: Desk, text: str) -> None:
    """Keep ``desk`` (validated from ``text``) for the next command."""
    _write(home, "desk", {"path": str(desk.path), "text": text, "data": desk.raw})


# Never copied into the cache: with one of these in .env, settings are read by pydantic.
SECRETS = frozenset(
    ("supervisor_access_code", "wake_token", "notify_urls", "tick_ping_url", "reply_imap_url")
)


def _fingerprint(path: str) -> list[int] | None:
    """Size, mtime and CRC-32 of a file: its secrets are not copied, only recognised."""
    import zlib

    try:
        st = os.stat(path)
        with open(path, "rb") as f:
            crc = zlib.crc32(f.read())
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, crc]


def env_file_values(home: str | Path, env_file: str) -> dict[str, str] | None:
    """``.env``'s ``DESKD_*`` values by field name, if recorded for its current bytes."""
    entry = _read(home).get("env_file")
    if not isinstance(entry, dict) or entry.get("path") != env_file:
        return None
    if entry.get("fingerprint") != _fingerprint(env_file):
        return None
    values = entry.get("values")
    return values if isinstance(values, dict) else None


def remember_env_file(home: str | Path, env_file: str, read: Callable[[], dict[str, str]]) -> None:
    """Keep ``.env``'s ``DESKD_*`` values as ``read()`` gives them, secrets aside.

    Fingerprinted before reading: a file changed meanwhile no longer matches the entry.
    """
    fingerprint = _fingerprint(env_file)
    values = read()
    secret = SECRETS & set(values) or any(_has_password(values.get(k)) for k in DATABASES)
    if fingerprint is not None and not secret:
        _write(home, "env_file", {"path": env_file, "fingerprint": fingerprint, "values": values})


def _has_password(url: str | None) -> bool:
    """Whether a database URL carries a password (``user:pw@`` or ``password=``)."""
    if not url or "://" not in url:
        return False
    rest = url.split("://", 1)[1]
    userinfo = rest.split("?", 1)[0].rpartition("@")[0]
    return ":" in userinfo or "password=" in rest.lower()
