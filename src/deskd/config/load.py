"""What a process runs with: its ``Settings`` and its ``Desk``, without pydantic when nothing
needs validating. The top floor of deskd.config; the small API every command uses.

- ``load_settings()``: the fast reader (``deskd.config.settings.from_plain``, ``.env`` from
  the cache) when it is exact, else pydantic-settings (``deskd.config.settings_model``),
  which refuses naming the variable.
- ``load_desk(home, path)``: the desk validated from the file's current bytes, from the cache
  (``deskd.config.cache``) or validated now (``deskd.config.desk_file``) and cached.
"""

from __future__ import annotations

import os
from pathlib import Path

from deskd import paths
from deskd.config.cache import cached_desk, env_file_values, remember_desk, text_of
from deskd.config.desk import Desk
from deskd.config.settings import Settings, deskd_variables, from_plain


def load_settings(env: dict[str, str] | None = None) -> Settings:
    """The process's settings: the fast path when it is exact, else pydantic's (refusing)."""
    environ = os.environ if env is None else env
    home = Path(paths.home_str(environ))
    values = deskd_variables(environ)
    if env is None:
        env_file = home / ".env"
        if env_file.is_file():
            file_values = env_file_values(home, str(env_file))
            if file_values is None:
                return _validated(env)
            values = {**file_values, **values}
    settings = from_plain(home, values)
    return settings if settings is not None else _validated(env)


def _validated(env: dict[str, str] | None) -> Settings:
    from deskd.config.settings_model import validate_settings as validate

    return validate(env)


def load_desk(home: Path, path: Path, *, required: bool = True) -> Desk:
    """The desk file's ``Desk``: from the cache when the file is unchanged, else validated."""
    desk = cached_desk(home, path)
    if desk is not None:
        return desk
    from deskd.config.desk_file import load_desk as validate
    from deskd.config.desk_file import parse_desk

    text = text_of(str(path))
    if text is None:
        return validate(path, required=required)  # missing or unreadable: its refusal
    desk = parse_desk(text, path=path)
    remember_desk(home, desk, text)
    return desk
