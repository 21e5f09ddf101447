"""Where a desk lives, resolved the same way by every process (LESSONS 46). Stdlib only.

``DESKD_HOME`` (default: the current folder), ``DESKD_DESK`` (default
``$DESKD_HOME/deskd.toml``), ``DESKD_DB`` (default ``$DESKD_HOME/data/deskd.db``),
``DESKD_LOG_DIR`` (default ``$DESKD_HOME/logs``). The session hook uses this module
directly, without pydantic; ``deskd.config.Settings`` agrees with it by construction.
"""

from __future__ import annotations

import os
from pathlib import Path


def _path(value: str) -> Path:
    return Path(value).expanduser()


def home(env: dict[str, str] | os._Environ[str] | None = None) -> Path:
    env = os.environ if env is None else env
    value = env.get("DESKD_HOME")
    return _path(value).resolve() if value else Path.cwd()


def desk_file(env: dict[str, str] | os._Environ[str] | None = None) -> Path:
    env = os.environ if env is None else env
    value = env.get("DESKD_DESK")
    return _path(value) if value else home(env) / "deskd.toml"


def db_file(env: dict[str, str] | os._Environ[str] | None = None) -> Path:
    env = os.environ if env is None else env
    value = env.get("DESKD_DB")
    return _path(value) if value else home(env) / "data" / "deskd.db"


def log_dir(env: dict[str, str] | os._Environ[str] | None = None) -> Path:
    env = os.environ if env is None else env
    value = env.get("DESKD_LOG_DIR")
    return _path(value) if value else home(env) / "logs"


def run_dir(home_dir: Path) -> Path:
    """Lock files live here, under the desk — never in a world-writable /tmp."""
    return home_dir / "run"
