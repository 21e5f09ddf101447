"""The settings a deskd process runs with, read without pydantic when nothing needs checking.

``deskd.config.SettingsModel`` (pydantic-settings) defines and validates every ``DESKD_*``
variable. Importing pydantic-settings costs a command more than everything else it does
(~60 ms of a ~90 ms start), so hot commands go through ``load_settings`` here: when every
variable set is one pydantic would only copy as a string or a path (no ``DESKD_PORT``,
``DESKD_SUPERVISOR_AUTH_MODE`` or ``DESKD_WAKE_TIMEOUT`` to check, no ``DESKD_CONFIG_MODULE``
to import) the values are taken as they are, the way ``deskd.paths`` does for the session
hook; otherwise ``deskd.config.load_settings`` validates them. Either way the result is this
plain ``Settings``; tests/config/test_config_settings.py checks both paths name the same
variables.

``$DESKD_HOME/.env`` is honoured the same way: its ``DESKD_*`` values are read once with
pydantic-settings' own reader and kept in the desk cache (``deskd.desk_cache``) keyed by the
file's bytes, the environment winning over it as in pydantic-settings.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from deskd import paths
from deskd.store.db import is_url, redact

# Fields pydantic copies without checking: a plain string, or a path (then ``expanduser``).
PLAIN_TEXT = frozenset(
    (
        "wake_execute",
        "agent_cmd",
        "wake_model",
        "wake_allowed_tools",
        "notify_urls",
        "host",
        "supervisor_access_code",
        "trusted_proxies",
        "console_hosts",
        "now",
        "tick_ping_url",
        "tick_overdue",
        "metrics_token",
        "role",
        "wake_token",
        "session_id",
        "host_name",
    )
)
PLAIN_PATHS = frozenset(("desk", "log_dir", "supervisor_keys"))
DATABASES = frozenset(("db", "database_url"))  # a path (expanded) or a postgresql:// URL (kept)


class Settings(NamedTuple):
    """Every ``DESKD_*`` variable (fields and defaults as ``deskd.config.SettingsModel``)."""

    home: Path
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
    supervisor_auth_mode: str = "simple"
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

    @property
    def execute(self) -> bool:
        """``DESKD_WAKE_EXECUTE=1`` records and launches; anything else is a dry run."""
        return self.wake_execute.strip() == "1"

    @property
    def desk_path(self) -> Path:
        return self.desk if self.desk is not None else self.home / "deskd.toml"

    @property
    def db_path(self) -> Path:
        """The SQLite file (a PostgreSQL desk has none: see ``database``)."""
        return Path(self.db) if self.db is not None else self.home / "data" / "deskd.db"

    @property
    def database(self) -> str:
        """What the store connects to: the SQLite file's path, or the PostgreSQL URL."""
        if self.db is not None and is_url(self.db):
            return self.db
        return str(self.db_path)

    @property
    def database_shown(self) -> str:
        """``database`` fit for logs and screens: a URL's password hidden."""
        return redact(self.database)

    @property
    def shared_database(self) -> bool:
        """PostgreSQL: several hosts share the desk, and its locks live in the database."""
        return is_url(self.database)

    @property
    def host_id(self) -> str:
        """This host's name (``DESKD_HOST_NAME``, default: the machine's hostname)."""
        if self.host_name:
            return self.host_name
        # The kernel's node name, which gethostname(2) returns: without importing socket
        # (selectors, select, array), which a tick that opens no connection does not need.
        return os.uname().nodename

    @property
    def log_path(self) -> Path:
        return self.log_dir if self.log_dir is not None else self.home / "logs"

    @property
    def run_path(self) -> Path:
        return paths.run_dir(self.home)

    @property
    def db_marker(self) -> Path:
        """Records every database this desk created, so a lost one is not recreated empty."""
        return paths.db_marker(self.home)

    @property
    def notify_url_list(self) -> list[str]:
        raw = self.notify_urls or ""
        return [u for u in raw.replace(",", " ").split() if u]


def ping_url_problem(value: str) -> str | None:
    """Why ``DESKD_TICK_PING_URL`` cannot be pinged, or None. Checked when settings load, so a
    value such as ``hc-ping.com/UUID`` (no scheme) is one line naming the variable on every
    command and in ``deskd doctor``, not a traceback in tick.log at 3 am."""
    text = value.strip()
    if not text:
        return None
    from urllib.parse import urlsplit  # stdlib and light (no http, email or ssl)

    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018  (a bad port or IPv6 literal raises here)
    except ValueError as exc:
        return f"must be an http:// or https:// URL ({exc})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return (
            "must be an http:// or https:// URL with a host (e.g. https://hc-ping.com/<check id>)"
        )
    if any(c.isspace() or ord(c) < 32 for c in text):
        return "must be a URL without spaces or control characters"
    return None


def deskd_variables(environ: dict[str, str] | os._Environ[str]) -> dict[str, str]:
    """``DESKD_*`` variables by field name (pydantic-settings matches names case-blind)."""
    return {k[6:].lower(): v for k, v in environ.items() if k[:6].upper() == "DESKD_"}


def from_plain(home: Path, values: dict[str, str]) -> Settings | None:
    """``Settings`` from variables pydantic would not check, or None when one needs checking."""
    fields: dict[str, object] = {}
    for name, value in values.items():
        if name == "tick_ping_url" and ping_url_problem(value):
            return None  # pydantic refuses it, naming the variable
        if name in PLAIN_TEXT:
            fields[name] = value
        elif name in PLAIN_PATHS:
            fields[name] = Path(value).expanduser()
        elif name in DATABASES:
            if "://" in value and not is_url(value):
                return None  # pydantic refuses it, naming the variable
            fields[name] = value if is_url(value) else str(Path(value).expanduser())
        elif name in Settings._fields and name != "home":
            return None  # port, auth mode, wake timeout, config module: pydantic's job
    if fields.get("db") is None and fields.get("database_url") is not None:
        fields["db"] = fields["database_url"]
    return Settings(home=home, **fields)  # type: ignore[arg-type]


def load_settings(env: dict[str, str] | None = None) -> Settings:
    """The process's settings: the fast path when it is exact, else pydantic's (refusing)."""
    environ = os.environ if env is None else env
    home = Path(paths.home_str(environ))
    values = deskd_variables(environ)
    if env is None:
        env_file = home / ".env"
        if env_file.is_file():
            from deskd.desk_cache import env_file_values

            file_values = env_file_values(home, str(env_file))
            if file_values is None:
                return _validated(env)
            values = {**file_values, **values}
    settings = from_plain(home, values)
    return settings if settings is not None else _validated(env)


def _validated(env: dict[str, str] | None) -> Settings:
    from deskd.config import load_settings as validate

    return validate(env)
