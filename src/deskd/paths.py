"""Where a desk lives, resolved the same way by every process (lesson 46). Stdlib only.

``DESKD_HOME`` (default: the current folder), ``DESKD_DESK`` (default
``$DESKD_HOME/deskd.toml``), ``DESKD_DB`` (default ``$DESKD_HOME/data/deskd.db``; a
``postgresql://`` URL, also as ``DESKD_DATABASE_URL``, is kept as it is),
``DESKD_LOG_DIR`` (default ``$DESKD_HOME/logs``). The session hook uses the ``*_str``
functions, which need only ``os.path``: pathlib alone is most of the hook's own cost
(docs/performance.md, "Costs the code is shaped around"). ``deskd.config.settings`` and
``deskd.config`` agree with this module by construction.
"""

from __future__ import annotations

import os

# Not `from typing import TYPE_CHECKING`: importing typing is a cost the hook would feel
# (docs/performance.md, "Costs the code is shaped around").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    Env = Mapping[str, str]


def _env(env: Env | None) -> Env:
    return os.environ if env is None else env


def home_str(env: Env | None = None) -> str:
    value = _env(env).get("DESKD_HOME")
    return os.path.abspath(os.path.expanduser(value)) if value else os.getcwd()


def db_file_str(env: Env | None = None) -> str:
    value = _env(env).get("DESKD_DB") or _env(env).get("DESKD_DATABASE_URL")
    if not value:
        value = _dot_env_db(home_str(env))
    if value:
        return value if "://" in value else os.path.expanduser(value)
    return os.path.join(home_str(env), "data", "deskd.db")


DB_VARIABLES = ("DESKD_DB", "DESKD_DATABASE_URL")
"""The variables that name the database, the first set winning."""


def _dot_env_db(home: str) -> str | None:
    """``DESKD_DB`` from ``$DESKD_HOME/.env``, as every deskd command reads it: sessions
    started by hand (``deskd session-hook install``) name only the desk, never a URL's password.
    Read only when the environment names no database (launched sessions always do)."""
    found = env_file_values(os.path.join(home, ".env"))
    return next((found[k] for k in DB_VARIABLES if found.get(k)), None)


def env_file_values(path: str | os.PathLike[str]) -> dict[str, str]:
    """The variables a ``.env`` file sets ({} when it cannot be read): ``NAME=value`` lines,
    ``export`` allowed, ``#`` comments; a value in single quotes is taken literally, one in
    double quotes has its ``\\``, ``\\"`` and ``\\n`` escapes read, and an unquoted one ends
    at `` #``. The one reader of ``.env`` (settings, the session hook, channel URLs, units);
    stdlib, for the hook. Nothing is interpolated: ``${VAR}`` stays as written."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except (OSError, ValueError):
        return {}
    found: dict[str, str] = {}
    for line in lines:
        key, eq, value = line.strip().removeprefix("export ").partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key or key.startswith("#"):
            continue
        quote = value[:1]
        if quote in ("'", '"') and value.find(quote, 1) > 0:
            end = _closing_quote(value, quote)
            value = value[1:end]
            if quote == '"':
                value = value.replace("\\\\", "\0").replace('\\"', '"').replace("\\n", "\n")
                value = value.replace("\0", "\\")
        else:
            value = value.split(" #", 1)[0].strip()
        found[key] = value
    return found


def _closing_quote(value: str, quote: str) -> int:
    """Where the quoted value that starts ``value`` ends (a ``\\"`` does not end one)."""
    index = 1
    while index < len(value):
        if value[index] == "\\" and quote == '"':
            index += 2
            continue
        if value[index] == quote:
            return index
        index += 1
    return len(value)


def log_dir_str(env: Env | None = None) -> str:
    value = _env(env).get("DESKD_LOG_DIR")
    return os.path.expanduser(value) if value else os.path.join(home_str(env), "logs")


def desk_file_str(env: Env | None = None) -> str:
    value = _env(env).get("DESKD_DESK")
    return os.path.expanduser(value) if value else os.path.join(home_str(env), "deskd.toml")


def home(env: Env | None = None) -> Path:
    from pathlib import Path

    return Path(home_str(env))


def desk_file(env: Env | None = None) -> Path:
    from pathlib import Path

    return Path(desk_file_str(env))


def log_dir(env: Env | None = None) -> Path:
    from pathlib import Path

    return Path(log_dir_str(env))


def run_dir(home_dir: Path) -> Path:
    """Lock files live here, under the desk — never in a world-writable /tmp."""
    return home_dir / "run"


def db_marker(home_dir: Path) -> Path:
    """``run/databases``: one absolute database path a line, written when deskd creates it.

    Under run/, not data/, so that deleting the database (or data/ itself) leaves it."""
    return run_dir(home_dir) / "databases"
