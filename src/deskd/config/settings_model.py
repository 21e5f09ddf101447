"""``SettingsModel``: every ``DESKD_*`` variable defined and validated (pydantic-settings).

A validation error names the ``DESKD_`` variable, never the Python field. Processes hold the
result as a plain ``deskd.config.settings.Settings``; hot commands reach this module only when a
variable needs checking (``deskd.config.settings.load_settings``), ``deskd doctor`` always does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from deskd import paths
from deskd.config.settings import Settings
from deskd.errors import DeskdError, SettingsError
from deskd.store.db import is_url


class SettingsModel(BaseSettings):
    """Every ``DESKD_*`` variable of docs/contract.md. Override variables default to unset."""

    model_config = SettingsConfigDict(env_prefix="DESKD_", extra="ignore")

    home: Path = Path(".")  # load_settings() sets the resolved desk folder
    desk: Path | None = None
    db: str | None = None  # a path, or a postgresql:// URL (kept as text: a URL is no path)
    database_url: str | None = None  # DESKD_DATABASE_URL: the same as DESKD_DB, for a URL
    host_name: str | None = None
    config_module: str | None = None
    wake_execute: str = "0"
    agent_cmd: str | None = None
    wake_model: str | None = None
    wake_timeout: str | None = None
    wake_allowed_tools: str | None = None
    notify_urls: str | None = None
    log_dir: Path | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    supervisor_auth_mode: Literal["simple", "signed", "hybrid"] = "simple"
    supervisor_access_code: str | None = None
    supervisor_keys: Path | None = None
    trusted_proxies: str | None = None
    console_hosts: str | None = None
    now: str | None = None
    tick_ping_url: str | None = None
    tick_overdue: str | None = None
    metrics_token: str | None = None
    role: str | None = None
    wake_token: str | None = None
    session_id: str | None = None

    @field_validator("port")
    @classmethod
    def _port_range(cls, value: int) -> int:
        if not 0 < value < 65536:
            raise ValueError("must be a TCP port between 1 and 65535")
        return value

    @field_validator("db", "database_url")
    @classmethod
    def _database(cls, value: str | None) -> str | None:
        if value is not None and "://" in value and not is_url(value):
            raise ValueError("must be a file path or a postgresql:// URL")
        return value

    @field_validator("tick_ping_url")
    @classmethod
    def _ping_url(cls, value: str | None) -> str | None:
        from deskd.config.settings import ping_url_problem

        problem = ping_url_problem(value) if value is not None else None
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("wake_timeout")
    @classmethod
    def _timeout(cls, value: str | None) -> str | None:
        # Checked at load so a bad value stops every command now, not a launch at 3 am.
        if value is None:
            return value
        from deskd.core.timeparse import DURATION_HINT, parse_duration

        try:
            seconds = parse_duration(value)
        except DeskdError:
            raise ValueError(f"must be {DURATION_HINT}") from None
        if seconds <= 0:
            raise ValueError("must be longer than zero")
        return value


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Read the environment (and ``$DESKD_HOME/.env``); refuse with the variable's name."""
    environ = dict(os.environ if env is None else env)
    home = paths.home(environ)
    env_file = home / ".env"
    try:
        if env is None:
            model = SettingsModel(_env_file=env_file if env_file.is_file() else None)  # type: ignore[call-arg]
            if env_file.is_file():
                _remember_env_file(home, env_file)
        else:
            values = {
                k[len("DESKD_") :].lower(): v for k, v in environ.items() if k.startswith("DESKD_")
            }
            model = SettingsModel.model_validate(values)
    except ValidationError as exc:
        err = exc.errors()[0]
        name = "DESKD_" + str(err["loc"][0]).upper() if err["loc"] else "DESKD_*"
        raise SettingsError(name, _reason(err)) from None
    fields = model.model_dump()
    for name in ("desk", "log_dir", "supervisor_keys"):
        if fields[name] is not None:
            fields[name] = Path(fields[name]).expanduser()
    if fields["db"] is None and fields["database_url"]:
        fields["db"] = fields["database_url"]
    if fields["db"] is not None and not is_url(fields["db"]):
        fields["db"] = str(Path(fields["db"]).expanduser())
    fields["home"] = home
    return Settings(**fields)


def _remember_env_file(home: Path, env_file: Path) -> None:
    """Keep the file's ``DESKD_*`` values for ``deskd.config.settings`` (read as pydantic-settings does)."""
    from dotenv import dotenv_values

    from deskd.config.cache import remember_env_file
    from deskd.config.settings import deskd_variables

    def read() -> dict[str, str]:
        values = {k: v for k, v in dotenv_values(env_file).items() if v is not None}
        return deskd_variables(values)

    remember_env_file(home, str(env_file), read)


def _reason(err: Mapping[str, Any]) -> str:
    msg = str(err.get("msg", "invalid"))
    return msg.removeprefix("Value error, ")
