"""``SettingsModel``: the pydantic-settings model that validates every ``DESKD_*`` variable,
built from ``deskd.config.settings.Settings`` (their one declaration) plus the checks below.

A validation error names the ``DESKD_`` variable, never the Python field. Hot commands reach
this module only when a variable needs checking (``deskd.config.load``); ``deskd doctor``
always does. Floor 4 of deskd.config.
"""

from __future__ import annotations

import os
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError, ValidationInfo, create_model, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from deskd import paths
from deskd.config.cache import remember_env_file
from deskd.config.settings import PROBLEMS, Settings, deskd_variables, settings_from
from deskd.errors import DeskdError, SettingsError


def _duration_problem(value: str) -> str | None:
    # Checked at load so a bad value stops every command now, not a launch at 3 am.
    from deskd.core.timeparse import DURATION_HINT, parse_duration

    try:
        seconds = parse_duration(value)
    except DeskdError:
        return f"must be {DURATION_HINT}"
    return None if seconds > 0 else "must be longer than zero"


_PROBLEMS: dict[str, Callable[[Any], str | None]] = {
    **PROBLEMS,
    "port": lambda port: None if 0 < port < 65536 else "must be a TCP port between 1 and 65535",
    "wake_timeout": _duration_problem,
    "link_ttl": _duration_problem,
}


class _Checks(BaseSettings):
    """The checks beyond a field's type; the fields come from ``Settings``."""

    model_config = SettingsConfigDict(env_prefix="DESKD_", extra="ignore")

    @field_validator(*_PROBLEMS, check_fields=False)
    @classmethod
    def _problem(cls, value: Any, info: ValidationInfo) -> Any:
        problem = _PROBLEMS[str(info.field_name)](value) if value is not None else None
        if problem:
            raise ValueError(problem)
        return value


def _fields() -> dict[str, Any]:
    """``Settings``' fields as pydantic takes them: (type, default). ``home`` defaults to
    ``.`` here; ``validate_settings`` replaces it with the desk folder ``deskd.paths`` resolves."""
    types = typing.get_type_hints(Settings)
    defaults = {"home": Path("."), **Settings._field_defaults}
    return {name: (types[name], defaults[name]) for name in Settings._fields}


SettingsModel = create_model("SettingsModel", __base__=_Checks, **_fields())
"""Every ``DESKD_*`` variable of docs/contract.md. Override variables default to unset."""


def validate_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Read the environment (and ``$DESKD_HOME/.env``); refuse with the variable's name."""
    environ = dict(os.environ if env is None else env)
    home = paths.home(environ)
    env_file = home / ".env"
    values = deskd_variables(environ)
    if env is None and env_file.is_file():  # the environment wins over the file
        from_file = deskd_variables(paths.env_file_values(env_file))
        remember_env_file(home, str(env_file), lambda: from_file)
        values = {**from_file, **values}
    try:
        model = SettingsModel.model_validate(values)
    except ValidationError as exc:
        err = exc.errors()[0]
        name = "DESKD_" + str(err["loc"][0]).upper() if err["loc"] else "DESKD_*"
        reason = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        raise SettingsError(name, reason) from None
    return settings_from(home, model.model_dump())
