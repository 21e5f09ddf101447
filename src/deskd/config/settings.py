"""``Settings``: every ``DESKD_*`` variable, declared once, and read without pydantic.

``Settings`` below is the one declaration of the variables: name, type and default.
pydantic-settings validates them with a model built from it (``deskd.config.settings_model``);
importing it costs a command more than everything else it does, so a process first tries
``from_plain`` here: when every variable set is one pydantic would only copy as a string or a
path (none of ``CHECKED``, and a database or ping URL that passes the same check pydantic's
validator runs) the values are taken as they are, the way ``deskd.paths`` does for the
session hook. Otherwise ``deskd.config.load`` asks the model, which refuses naming the
variable. Either way the result is a ``Settings``.

Floor 1 of deskd.config: stdlib, ``deskd.paths`` and the store's URL helpers only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Literal, NamedTuple

from deskd import paths
from deskd.store.db import is_url, redact


class Settings(NamedTuple):
    """Every ``DESKD_*`` variable of docs/contract.md (``DESKD_<NAME>`` for each field)."""

    home: Path  # the desk folder, resolved by deskd.paths
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
    console_url: str | None = None  # the console as people reach it: pages carry links to it
    link_ttl: str | None = None  # how long a page's action link works (default 24h)
    now: str | None = None
    tick_ping_url: str | None = None
    tick_overdue: str | None = None
    metrics_token: str | None = None
    reply_imap_url: str | None = None
    """The mailbox whose replies to pages the tick reads (imap:// or imaps://, in ``.env``)."""
    role: str | None = None
    wake_token: str | None = None
    session_id: str | None = None
    hook_relay: Literal["auto", "off"] = "auto"
    executor_connections: str = "4"  # a PostgreSQL desk's executors connected at once, per host

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
        return self.db if self.db is not None and is_url(self.db) else str(self.db_path)

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
        # Else the kernel's node name, which gethostname(2) returns: without importing socket
        # (selectors, select, array), which a tick that opens no connection does not need.
        return self.host_name or os.uname().nodename

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


# What the fast reader leaves to pydantic: a number, a choice, a duration, a module to import.
CHECKED = frozenset(("port", "supervisor_auth_mode", "wake_timeout", "link_ttl", "config_module"))
# Read as paths (``~`` expanded); the database fields are a path or a URL.
# (NamedTuple keeps each annotation as a ForwardRef: its text, not evaluated.)
PATHS = frozenset(
    name
    for name, kind in Settings.__annotations__.items()
    if name != "home" and getattr(kind, "__forward_arg__", "").startswith("Path")
)
DATABASES = ("db", "database_url")
# A choice among names (``Literal[...]``) the fast reader checks itself: a value outside it goes
# to pydantic, which refuses it naming the variable and the choices.
CHOICES = {
    name: tuple(re.findall(r"""['\"]([^'\"]*)['\"]""", kind.__forward_arg__))
    for name, kind in Settings.__annotations__.items()
    if name not in CHECKED and getattr(kind, "__forward_arg__", "").startswith("Literal[")
}


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:/")
_HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def database_problem(value: str) -> str | None:
    """Why ``DESKD_DB`` / ``DESKD_DATABASE_URL`` names no database, or None. Anything that
    starts like a URL (``postgresql:/desk:pw@host/db``, one slash) is a URL or refused, never
    a file path: taken as one, its password would become a folder name."""
    if _SCHEME.match(value) and not is_url(value):
        return "must be a file path or a postgresql://user:password@host/db URL"
    return None


def host_name_problem(value: str) -> str | None:
    """Why ``DESKD_HOST_NAME`` is no host name, or None: it is stored for good and shown."""
    if value and _HOST_NAME.fullmatch(value) is None:  # empty: unset, the machine's name
        return "must be letters, digits, '.', '_' or '-' (at most 64, first a letter or digit)"
    return None


def ping_url_problem(value: str, example: str = "https://hc-ping.com/<check id>") -> str | None:
    """Why ``DESKD_TICK_PING_URL`` (or ``DESKD_CONSOLE_URL``) is no web address, or None.
    Checked when settings load, so a value such as ``hc-ping.com/UUID`` (no scheme) is one
    line naming the variable on every command and in ``deskd doctor``, not a traceback in
    tick.log at 3 am."""
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
        return f"must be an http:// or https:// URL with a host (e.g. {example})"
    if any(c.isspace() or ord(c) < 32 for c in text):
        return "must be a URL without spaces or control characters"
    return None


def imap_url_problem(value: str) -> str | None:
    """Why ``DESKD_REPLY_IMAP_URL`` names no mailbox, or None."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value.strip())
        parts.port  # noqa: B018  (a bad port raises here)
    except ValueError as exc:
        return f"must be an imap:// or imaps:// URL ({exc})"
    if parts.scheme not in ("imap", "imaps"):
        return "must start imap:// or imaps://"
    if not parts.hostname or not parts.username or parts.password is None:
        return "needs user, password and host: imaps://USER:PASSWORD@HOST[:PORT][/FOLDER]"
    return None


PROBLEMS: dict[str, Callable[[str], str | None]] = {
    "host_name": host_name_problem,
    "db": database_problem,
    "reply_imap_url": imap_url_problem,
    "database_url": database_problem,
    "tick_ping_url": ping_url_problem,
    "console_url": lambda value: ping_url_problem(value, "https://deskd.example.com"),
    "executor_connections": lambda n: (
        None if n.isdigit() else "must be a whole number (0: no bound)"
    ),
}
"""The text variables both readers check with the same function: the fast reader leaves a
value that fails to pydantic, whose validator refuses it naming the variable."""


def deskd_variables(environ: dict[str, str] | os._Environ[str]) -> dict[str, str]:
    """``DESKD_*`` variables by field name (pydantic-settings matches names case-blind)."""
    return {k[6:].lower(): v for k, v in environ.items() if k[:6].upper() == "DESKD_"}


def settings_from(home: Path, fields: dict[str, object]) -> Settings:
    """``Settings`` from field values as read or validated: paths expanded, ``DESKD_DB``
    falling back to ``DESKD_DATABASE_URL``. Both readers end here."""
    values = {k: v for k, v in fields.items() if v is not None and k in Settings._fields}
    for name in PATHS & values.keys():
        values[name] = Path(str(values[name])).expanduser()
    if values.get("db") is None and values.get("database_url"):
        values["db"] = values["database_url"]
    db = values.get("db")
    if isinstance(db, str) and not is_url(db):
        values["db"] = str(Path(db).expanduser())
    values["home"] = home
    return Settings(**values)  # type: ignore[arg-type]


def from_plain(home: Path, values: dict[str, str]) -> Settings | None:
    """``Settings`` from variables pydantic would not check, or None when one needs checking."""
    for name, value in values.items():
        if name in CHECKED or (name in CHOICES and value not in CHOICES[name]):
            return None  # pydantic's job
        if name in PROBLEMS and PROBLEMS[name](value):
            return None  # pydantic refuses it, naming the variable
    return settings_from(home, {k: v for k, v in values.items() if k != "home"})
