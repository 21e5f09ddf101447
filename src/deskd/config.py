"""``SettingsModel``: every ``DESKD_*`` variable defined and validated (pydantic-settings),
and the ``DESKD_CONFIG_MODULE`` hook.

A validation error names the ``DESKD_`` variable, never the Python field. Processes hold the
result as a plain ``deskd.settings.Settings``; hot commands reach this module only when a
variable needs checking (``deskd.settings.load_settings``), ``deskd doctor`` always does.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from deskd import paths
from deskd.errors import DeskdError, SettingsError
from deskd.settings import Settings
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
        from deskd.settings import ping_url_problem

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
    """Keep the file's ``DESKD_*`` values for ``deskd.settings`` (read as pydantic-settings does)."""
    from dotenv import dotenv_values

    from deskd.desk_cache import remember_env_file
    from deskd.settings import deskd_variables

    def read() -> dict[str, str]:
        values = {k: v for k, v in dotenv_values(env_file).items() if v is not None}
        return deskd_variables(values)

    remember_env_file(home, str(env_file), read)


def _reason(err: Mapping[str, Any]) -> str:
    msg = str(err.get("msg", "invalid"))
    return msg.removeprefix("Value error, ")


# -- DESKD_CONFIG_MODULE: the host Python API (docs/python-api.md) ----------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class RoleSpec:
    """A role declared from Python: the keys of a ``[[roles]]`` table in deskd.toml."""

    name: str
    title: str = ""
    capabilities: Sequence[str] = ()
    workdir: str | None = None
    enabled: bool = True
    prompt: str = ""
    channels: Sequence[str] = ()
    agent: Mapping[str, Any] | None = None
    """The ``agent`` table of a role: ``{"kind": "codex", "model": "gpt-5"}``."""

    def as_table(self) -> dict[str, Any]:
        """The ``[[roles]]`` table this spec stands for (validated like the file's)."""
        table: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "capabilities": list(self.capabilities),
            "enabled": self.enabled,
            "prompt": self.prompt,
            "channels": list(self.channels),
        }
        if self.workdir is not None:
            table["workdir"] = self.workdir
        if self.agent is not None:
            table["agent"] = dict(self.agent)
        return table


class PromptBuilder(Protocol):
    """Builds the prompt a launch carries. ``role`` is woken for ``reasons`` (one per wake
    the launch carries, as ``deskd wake list`` shows them: ``2 unread items (urgent)``,
    ``task``, ``meeting`` …); ``default`` is the prompt deskd built, with everything owed in
    it. Return the prompt to send (``default`` to keep it)."""

    def __call__(self, role: str, reasons: Sequence[str], default: str) -> str: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class PageMessage:
    """What a Python channel is given: one page (or its follow-up) to deliver."""

    title: str
    body: str
    kind: str
    """``page``, ``follow_up`` (still owed), ``settled`` (no action needed) or ``notice``."""


ChannelSender = Callable[[PageMessage], object]
"""A Python channel: deliver the message, raise to fail (the pager retries with backoff);
returning ``False`` fails it too. Anything else counts as sent."""

PYTHON_CHANNEL_SCHEME = "python://"


@dataclass
class HostConfig:
    """What a host module added with ``configure(...)``; merged into the desk by ``deskd.desk``."""

    module: str = ""
    roles: list[dict[str, Any]] = field(default_factory=list)
    desk: dict[str, Any] = field(default_factory=dict)
    channels: list[dict[str, Any]] = field(default_factory=list)
    prompt_builder: PromptBuilder | None = None
    senders: dict[str, ChannelSender] = field(default_factory=dict)


_host = HostConfig()


def configure(
    *,
    roles: Sequence[RoleSpec | Mapping[str, Any]] | None = None,
    timezone: str | None = None,
    inbox_sources: Sequence[str] | None = None,
    desk: Mapping[str, Any] | None = None,
    channels: Sequence[Mapping[str, Any]] | None = None,
    prompt_builder: PromptBuilder | None = None,
) -> None:
    """Called from a host module's ``configure_deskd()`` to extend the desk file.

    ``roles`` are ``RoleSpec``s (or ``[[roles]]`` tables); ``timezone`` and
    ``inbox_sources`` set those keys of ``[desk]``, ``desk`` any other key the file leaves
    out; ``channels`` take the ``[[channels]]`` shape; ``prompt_builder`` builds wake
    prompts. Anything also defined in deskd.toml is refused with both places named.
    """
    for role in roles or ():
        _host.roles.append(role.as_table() if isinstance(role, RoleSpec) else dict(role))
    if timezone is not None:
        _host.desk["timezone"] = timezone
    if inbox_sources is not None:
        _host.desk["inbox_sources"] = list(inbox_sources)
    if desk:
        _host.desk.update(desk)
    for channel in channels or ():
        _host.channels.append(dict(channel))
    if prompt_builder is not None:
        if not callable(prompt_builder):
            raise SettingsError("DESKD_CONFIG_MODULE", "prompt_builder must be callable")
        _host.prompt_builder = prompt_builder


def register_channel(name: str, send: ChannelSender) -> None:
    """A channel named ``name`` whose pages go to ``send`` (beside the apprise URLs).

    Roles and ``default_channels`` name it like any channel; the pager records its result,
    retries a failure with backoff and sends it the "settled" follow-up.
    """
    if not isinstance(name, str) or not _CHANNEL_NAME.fullmatch(name):
        raise SettingsError(
            "DESKD_CONFIG_MODULE", f"channel name {name!r} must match {_CHANNEL_NAME.pattern}"
        )
    if not callable(send):
        raise SettingsError("DESKD_CONFIG_MODULE", f"channel {name!r}: send must be callable")
    if name in _host.senders:
        raise SettingsError("DESKD_CONFIG_MODULE", f"channel {name!r} is registered twice")
    _host.senders[name] = send
    _host.channels.append({"name": name, "urls": [PYTHON_CHANNEL_SCHEME + name]})


_CHANNEL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")


def host_config() -> HostConfig:
    """What the host module configured in this process (empty without one)."""
    return _host


def load_config_module(name: str | None, *, desk_home: Path) -> HostConfig:
    """Import ``name`` (with the desk folder on ``sys.path``) and run its ``configure_deskd()``."""
    global _host
    _host = HostConfig(module=name or "")
    if not name:
        return _host
    if str(desk_home) not in sys.path:
        sys.path.insert(0, str(desk_home))
    try:
        module = importlib.import_module(name)
    except Exception as exc:
        raise SettingsError(
            "DESKD_CONFIG_MODULE", f"cannot import {name!r}: {_one_line(exc)}"
        ) from None
    hook = getattr(module, "configure_deskd", None)
    if not callable(hook):
        raise SettingsError("DESKD_CONFIG_MODULE", f"{name!r} has no configure_deskd() function")
    try:
        hook()
    except DeskdError:
        raise
    except Exception as exc:
        raise SettingsError(
            "DESKD_CONFIG_MODULE", f"{name}.configure_deskd() failed: {_one_line(exc)}"
        ) from None
    return _host


def _one_line(exc: BaseException) -> str:
    """A host module's error as one line (lesson 50: no traceback, no multi-line dump)."""
    text = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    if isinstance(exc, ImportError):  # "No module named 'x'" says it all
        return text or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
