"""``deskd init``: an annotated desk file, ``.env.example``, the folders and the database.

The templates are plain strings (here and in ``init_template``), not package data, so an
installed wheel and a checkout write the same text, and a test can load the desk file they
produce.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from deskd.config.settings import Settings
from deskd.errors import AlreadyExists, InvalidValue, Unavailable
from deskd.service.ops.init_answers import CHANNEL_VAR, DeskAnswers, default_answers
from deskd.service.ops.init_template import channel_url_ref, render_desk

ENV_TEMPLATE = """\
# .env.example: every DESKD_* variable deskd reads. Copy to .env (in the desk folder) or
# export them; the environment wins over .env. Overrides are unset unless you set them.
# Precedence for agent settings, highest first: environment, the role's own setting,
# the desk's [agent], deskd's built-in default.

# Where the desk is (every process resolves it the same way; `deskd doctor` shows it).
# DESKD_HOME=/srv/desk                 # the desk folder (default: the current folder)
# DESKD_DESK=/srv/desk/deskd.toml      # the desk file (default: $DESKD_HOME/deskd.toml)
# DESKD_DB=/srv/desk/data/deskd.db     # the database (default: $DESKD_HOME/data/deskd.db)
# DESKD_DB=postgresql://desk@db.internal/desk  # or PostgreSQL: one desk shared by several hosts
# DESKD_DATABASE_URL=                  # the same as DESKD_DB, for a URL (DESKD_DB wins)
# DESKD_HOST_NAME=gpu-box              # this host's name on a shared desk (default: the hostname)
# DESKD_LOG_DIR=/srv/desk/logs         # logs (default: $DESKD_HOME/logs)
# DESKD_CONFIG_MODULE=myapp.deskd_conf # a Python module whose configure_deskd() extends the desk

# Waking.
# DESKD_WAKE_EXECUTE=0                 # 1 = ticks record and launch; anything else = dry run
# DESKD_AGENT_CMD=/usr/local/bin/claude  # overrides every role's agent executable
# DESKD_WAKE_MODEL=                    # overrides every role's model
# DESKD_WAKE_TIMEOUT=30m               # longest agent turn
# DESKD_WAKE_ALLOWED_TOOLS=Read,Grep   # overrides [agent] allowed_tools (a role's own grant wins)
# DESKD_NOTIFY_URLS=                   # extra apprise URLs paged for every role (space or comma)
# DESKD_TICK_PING_URL=                 # dead-man's switch: /start before a tick, the URL after, /fail on error
# DESKD_TICK_OVERDUE=3m               # a host with no executing tick for this long is overdue
# DESKD_HOOK_RELAY=auto               # PostgreSQL: "off" keeps ticks from starting the session-hook relay
# DESKD_EXECUTOR_CONNECTIONS=4       # PostgreSQL: this host's executors connected at once (0: no bound)

# The supervisor console.
# DESKD_HOST=127.0.0.1
# DESKD_PORT=8000
# DESKD_SUPERVISOR_AUTH_MODE=simple    # simple, signed or hybrid
# DESKD_SUPERVISOR_ACCESS_CODE=        # simple mode; generated and printed once when unset
# DESKD_SUPERVISOR_KEYS=               # signed mode: public keys file (deskd supervisor keygen)
# DESKD_CONSOLE_HOSTS=                 # names the console answers to (e.g. desk.example.com behind a proxy)
# DESKD_CONSOLE_URL=                   # the console as people reach it: pages carry action links to it
# DESKD_LINK_TTL=24h                   # how long a page's action link works (each works once)
# DESKD_TRUSTED_PROXIES=               # proxies whose X-Forwarded-For is believed (e.g. 127.0.0.1)
# DESKD_METRICS_TOKEN=                 # bearer token for /metrics off loopback (not the access code)
# DESKD_REPLY_IMAP_URL=                # imaps://USER:PASSWORD@HOST/INBOX: replies to pages ([reply] from)
# AM_TOKEN=  GH_SECRET=                # event sources' secrets, named in deskd.toml as "${AM_TOKEN}"

# Rehearsals and tests.
# DESKD_NOW=2026-12-01T09:00:00-05:00  # pins the clock (ISO 8601 with offset)

# Set by deskd in the sessions it launches; read by deskd-session-hook and the CLI.
# DESKD_ROLE=researcher                # the role this session acts as
# DESKD_WAKE_TOKEN=                    # ties a session's turns to the wake that launched it
# DESKD_SESSION_ID=                    # the native session id

# Secrets for ${VAR} in channel URLs live here too, e.g.:
# DISCORD_WEBHOOK=1234/abcd
"""

FOLDERS = ("data", "logs", "run")


@dataclass(frozen=True, slots=True)
class Scaffold:
    """What ``init`` wrote: the paths, and whether it created the database."""

    home: Path
    desk: Path
    db: str
    """The SQLite file, or the PostgreSQL URL with its password masked."""
    written: list[Path] = field(default_factory=list)
    db_created: bool = False
    backups: list[Path] = field(default_factory=list)


def init_desk(
    settings: Settings,
    *,
    force: bool = False,
    now: int | None = None,
    new_db: bool = False,
    answers: DeskAnswers | None = None,
) -> Scaffold:
    """Write the desk file, ``.env.example`` and the folders; create the database if missing.

    ``answers`` fill the desk file in (default: the example desk named after its folder); a
    channel URL among them goes into ``.env`` (0600), named from the desk file by variable.

    Refuses when either file exists unless ``force``; with it, each file it replaces is kept
    first as ``NAME.bak-<UTC YYYYMMDDTHHMMSSZ>`` (``now``, epoch ms). The database is never
    opened when it already exists: ``--force`` rewrites files, never rows or the schema.
    ``new_db`` creates only an empty database, where a lost one was (nothing else is written).
    Folders are 0700: the database, logs and transcripts are for this user alone.
    """
    url = settings.database if settings.shared_database else None
    if new_db:
        if url is not None:
            raise InvalidValue(
                "--new-db",
                settings.database_shown,
                "a PostgreSQL database is kept by its server: `deskd init` creates deskd's "
                "tables in an empty one",
            )
        return _new_database(settings)
    home = settings.home
    desk_path = settings.desk_path
    env_path = home / ".env.example"
    existing = refuse_existing(settings, force=force)
    try:
        backups = [_backup(p, now=now or 0) for p in existing]
        # A URL is no path: its parent "folder" would be a directory named after the URL,
        # password and all.
        data = () if url is not None else (settings.db_path.parent,)
        # A desk folder init creates is private (docs/security.md); one that was there (a
        # project folder) keeps its mode.
        mine = () if home.exists() else (home,)
        for folder in (*mine, *(home / f for f in FOLDERS), settings.log_path, *data):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            folder.chmod(0o700)  # an existing one too
        desk_path.parent.mkdir(parents=True, exist_ok=True)
        answers = answers or default_answers(home)
        desk_path.write_text(render_desk(answers), encoding="utf-8")
        env_path.write_text(ENV_TEMPLATE, encoding="utf-8")
        written = [desk_path, env_path]
        if answers.channel and channel_url_ref(answers.channel) != answers.channel:
            written.append(_set_env(home / ".env", CHANNEL_VAR, answers.channel))
    except OSError as exc:
        raise Unavailable(f"cannot write the desk in {home}: {exc.strerror}") from None
    if url is not None:
        db_created = _create_tables(url, shown=settings.database_shown)
    else:
        db_created = _create_database(settings.db_path, marker=settings.db_marker)
    return Scaffold(
        home=home,
        desk=desk_path,
        db=settings.database_shown,
        written=written,
        db_created=db_created,
        backups=backups,
    )


def refuse_existing(settings: Settings, *, force: bool) -> list[Path]:
    """The files ``init`` would replace; refused unless ``force`` (asked before any question,
    so nobody answers them for nothing)."""
    home = settings.home
    existing = [p for p in (settings.desk_path, home / ".env.example") if p.exists()]
    if existing and not force:
        names = ", ".join(
            str(p.relative_to(home)) if p.is_relative_to(home) else str(p) for p in existing
        )
        raise AlreadyExists(
            f"{names} already exist{'s' if len(existing) == 1 else ''} in {home} "
            "(use --force to rewrite them; the database is never touched)"
        )
    return existing


def _set_env(path: Path, name: str, value: str) -> Path:
    """Set ``name`` in the desk's ``.env`` (created 0600): its line replaced, or appended."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    kept = [line for line in lines if not line.startswith(f"{name}=")]
    # Single quotes: deskd.paths.env_file_values takes the value literally.
    quoted = f"'{value}'" if "'" not in value else json.dumps(value)
    kept.append(f"{name}={quoted}")
    path.touch(mode=0o600, exist_ok=True)
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return path


def _backup(path: Path, *, now: int) -> Path:
    """Copy ``path`` aside before it is rewritten; a second backup in the same second gets
    a counter rather than overwriting the first."""
    stamp = datetime.fromtimestamp(now / 1000, tz=UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.bak-{stamp}")
    counter = 1
    while target.exists():
        target = path.with_name(f"{path.name}.bak-{stamp}-{counter}")
        counter += 1
    shutil.copy2(path, target)
    return target


def _create_database(path: Path, *, marker: Path) -> bool:
    if path.exists() and path.stat().st_size > 0:
        return False
    from deskd.store.db import DatabaseLost, connect

    try:
        connect(path, marker=marker).close()
    except DatabaseLost:
        return False  # a lost database is only recreated by `deskd init --new-db`
    except Exception as exc:
        raise Unavailable(f"cannot create the database {path}: {exc}") from None
    return True


def _create_tables(url: str, *, shown: str) -> bool:
    """Migrate the PostgreSQL database at ``url``; whether it held no deskd tables before."""
    from deskd.store.db import connect
    from deskd.store.migrations import schema_version
    from deskd.store.pg import open_pg

    try:
        probe = open_pg(url, busy_ms=5000)
        try:
            found = schema_version(probe)
        finally:
            probe.close()
        connect(url).close()
    except Exception as exc:
        said = str(exc).replace(url, shown)
        raise Unavailable(f"cannot set up the database {shown}: {said}") from None
    return found == 0


def _new_database(settings: Settings) -> Scaffold:
    """``deskd init --new-db``: an empty database where the desk's was lost."""
    from deskd.store.db import forget_created

    path = settings.db_path
    if path.exists() and path.stat().st_size > 0:
        raise AlreadyExists(
            f"{path} already exists and is not empty: --new-db never replaces a database "
            "(move it away first if you really mean to start over)"
        )
    for leftover in (Path(f"{path}-wal"), Path(f"{path}-shm")):
        leftover.unlink(missing_ok=True)  # a stale WAL would be replayed into the new file
    forget_created(settings.db_marker, str(path))
    _create_database(path, marker=settings.db_marker)
    return Scaffold(home=settings.home, desk=settings.desk_path, db=str(path), db_created=True)
