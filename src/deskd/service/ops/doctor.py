"""``deskd doctor``: which desk, desk file and database are in use, and whether they work.

Doctor must run on a broken desk — that is when it is needed — so it never goes through
``open_context()``: each check catches its own refusal, reports it, and the rest go on
with whatever could be resolved. It only reads: it never creates or migrates the database.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from deskd import __version__, paths
from deskd.config.desk import Desk
from deskd.config.desk_file import load_desk
from deskd.config.host import HostConfig, load_config_module
from deskd.config.settings import Settings, database_problem
from deskd.config.settings_model import validate_settings
from deskd.core.ladder import RUNGS
from deskd.errors import DeskdError
from deskd.service.ops.doctor_db import Check, database_checks, role_checks, tick_checks


class Where(NamedTuple):
    """The paths every process resolves the same way (lesson 46)."""

    home: Path
    desk: Path
    db: Path | str  # a SQLite file, or a PostgreSQL URL
    logs: Path
    run: Path


def run_checks(env: Mapping[str, str] | None = None) -> list[Check]:
    """Every check, in the order a person fixes things: folder, settings, desk, DB, agents, logs."""
    environ = dict(os.environ if env is None else env)
    search = environ.get("PATH", os.defpath)
    settings, where, said = _settings(environ, read_env_file=env is None)
    checks = [
        _home_check(where.home, environ),
        Check("deskd", "ok", f"deskd {__version__}, python {sys.executable}"),
        hook_check(search),
        said,
    ]
    host = _host(settings, where, checks)
    desk = _desk(where, host, checks)
    found = database_checks(where.db, where.home)
    checks += found
    if desk is not None:
        opens = all(c.ok for c in found)  # else do not try (and wait for) it a second time
        checks += role_checks(desk, settings, where.home, search, db=where.db if opens else None)
        checks += channel_checks(settings, desk) + ways_in_checks(settings, desk)
    data = [where.db.parent] if isinstance(where.db, Path) else []  # a URL has no folder
    checks += [
        folder_check("log dir", where.logs),
        folder_check("run dir", where.run),
        private_check([*data, where.logs, where.run]),
        tick_schedule_check(where.home, environ),
    ]
    if settings is not None:
        from deskd.adapters.clock import now_ms
        from deskd.service.ops.console import access_checks  # the supervisor console

        checks += tick_checks(settings, where.db, now=now_ms(settings.now))  # hosts' last ticks
        checks += access_checks(settings)
    return checks


MIN_FREE_BYTES = 1024 * 1024
"""Less room than this on a folder's disk is a full disk: a tick's writes no longer fit."""
MAX_MODE_SCAN = 2000
"""Files looked at by the file-modes check (a desk with years of transcripts stays fast)."""


def private_check(folders: list[Path]) -> Check:
    """The data, logs and run folders and what is in them are readable by this user only
    (0700 / 0600): the database and agent transcripts hold every item's text."""
    exposed: list[str] = []
    seen = 0
    for folder in folders:
        if not folder.is_dir():
            continue
        for root, dirs, files in os.walk(folder):
            for name in [root, *(os.path.join(root, f) for f in files)]:
                seen += 1
                try:
                    mode = os.stat(name).st_mode & 0o777
                except OSError:
                    continue
                if mode & 0o077:
                    exposed.append(f"{name} ({mode:o})")
            if seen > MAX_MODE_SCAN:
                dirs.clear()
    if not exposed:
        return Check("file modes", "ok", "data, logs and run are readable by this user only")
    shown = "; ".join(exposed[:5]) + (f" and {len(exposed) - 5} more" if len(exposed) > 5 else "")
    fix = " ".join(str(f) for f in folders if f.is_dir())
    return Check("file modes", "warn", f"group/world-readable: {shown} (chmod -R go-rwx {fix})")


def tick_schedule_check(home: Path, environ: Mapping[str, str]) -> Check:
    """A crontab line or a systemd timer ticks this desk (a warning, never a failure:
    a desk may be ticked by hand or by `deskd tick --loop`)."""
    from deskd.schedule.status import schedule_check, timers

    try:
        level, detail = schedule_check(home, environ)
        idle = [t for t in timers(home, environ) if t.this_desk and not t.active]
    except Exception as exc:  # crontab missing or unreadable: say so, do not fail doctor
        level, detail, idle = "warn", f"could not read the crontab or timers: {exc}", []
    if idle and level == "ok" and not detail.count("crontab: "):
        level = "warn"  # units written, but systemd runs nothing: the desk does not tick
        detail = f"{idle[0].where}: {idle[0].state}; `deskd timer status` says more"
    return Check("tick schedule", "ok" if level == "ok" else "warn", detail)


def _settings(
    environ: dict[str, str], *, read_env_file: bool
) -> tuple[Settings | None, Where, Check]:
    try:
        # validate_settings(None) reads the process environment and $DESKD_HOME/.env.
        settings = validate_settings(None if read_env_file else environ)
    except DeskdError as exc:
        home = paths.home(environ)
        db = paths.db_file_str(environ)
        where = Where(
            home=home,
            desk=paths.desk_file(environ),
            db="" if database_problem(db) else db,  # a URL typed wrong is no path to show
            logs=paths.log_dir(environ),
            run=paths.run_dir(home),
        )
        return None, where, Check("settings", "fail", exc.message)
    env_file = settings.home / ".env"
    source = f"{env_file} read" if env_file.is_file() else "no .env"
    where = Where(
        home=settings.home,
        desk=settings.desk_path,
        db=settings.database if settings.shared_database else settings.db_path,
        logs=settings.log_path,
        run=settings.run_path,
    )
    return settings, where, Check("settings", "ok", f"DESKD_* variables valid ({source})")


def _home_check(home: Path, environ: Mapping[str, str]) -> Check:
    origin = "DESKD_HOME" if environ.get("DESKD_HOME") else "the current folder; DESKD_HOME unset"
    if not home.is_dir():
        return Check("desk folder", "fail", f"{home} ({origin}) is not a folder")
    return Check("desk folder", "ok", f"{home} ({origin})")


def hook_check(search_path: str) -> Check:
    """``deskd-session-hook`` beside this interpreter (what launched sessions are wired to)."""
    beside = Path(sys.executable).parent / "deskd-session-hook"
    if beside.is_file() and os.access(beside, os.X_OK):
        return Check("session hook", "ok", str(beside))
    found = shutil.which("deskd-session-hook", path=search_path)
    if found:
        other = (
            f"{found} is on PATH but not beside {sys.executable}: it may belong to another "
            "install; reinstall deskd in this environment (pip install -e .)"
        )
        return Check("session hook", "warn", other)
    missing = (
        f"deskd-session-hook is not installed beside {sys.executable} nor on PATH; "
        "reinstall deskd (pip install -e .)"
    )
    return Check("session hook", "fail", missing)


def _host(settings: Settings | None, where: Where, checks: list[Check]) -> HostConfig | None:
    name = settings.config_module if settings is not None else None
    if not name:
        return None
    try:
        host = load_config_module(name, desk_home=where.home)
    except DeskdError as exc:
        checks.append(Check("config module", "fail", exc.message))
        return None
    checks.append(Check("config module", "ok", f"{name}: configure_deskd() ran"))
    return host


def _desk(where: Where, host: HostConfig | None, checks: list[Check]) -> Desk | None:
    try:
        desk = load_desk(where.desk, host=host)
    except DeskdError as exc:
        checks.append(Check("desk file", "fail", exc.message))
        return None
    if not desk.roles:
        empty = f"{where.desk}: valid, but no roles (add a [[roles]] table)"
        checks.append(Check("desk file", "warn", empty))
        return desk
    names = ", ".join(desk.role_names)
    count = f"{len(desk.roles)} role" + ("s" if len(desk.roles) != 1 else "")
    detail = f"{where.desk}: {count} ({names}), timezone {desk.timezone}"
    checks.append(Check("desk file", "ok", detail))
    return desk


def folder_check(name: str, folder: Path) -> Check:
    """A folder deskd writes to: present, writable and with room on its disk, or creatable."""
    if folder.is_dir():
        if os.access(folder, os.W_OK | os.X_OK):
            vfs = os.statvfs(folder)
            if vfs.f_bavail * vfs.f_frsize < MIN_FREE_BYTES:
                full = (
                    f"{folder}: the disk is full ({vfs.f_bavail * vfs.f_frsize // 1024} KiB free): "
                    "free space on it, or ticks, launches and the session hook fail"
                )
                return Check(name, "fail", full)
            return Check(name, "ok", f"{folder} writable")
        return Check(name, "fail", f"{folder} is not writable by this user")
    if folder.exists():
        return Check(name, "fail", f"{folder} exists but is not a folder")
    parent = folder.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if os.access(parent, os.W_OK | os.X_OK):
        return Check(name, "warn", f"{folder} missing; it is created on first use (`deskd init`)")
    return Check(name, "fail", f"{folder} missing and {parent} is not writable")


def channel_checks(settings: Settings | None, desk: Desk) -> list[Check]:
    """The channels' checks. Reads the desk, the environment and ``.env`` (no network): the
    human rung is wired for every role, no literal credential sits in deskd.toml (agents
    running as the same user can read it: apprise's own parse of each URL says which parts are
    credentials; this is the one check that loads apprise), and every ``${VAR}`` a URL needs
    is set."""
    from deskd.service.paging.channels import (
        all_channels,
        literal_credentials,
        missing_vars,
        routes,
        shown_url,
        var_values,
    )

    checks: list[Check] = []
    if any(RUNGS[name].pages for name, _ in desk.ladder):
        unwired = [r for r in desk.enabled_roles if not routes(settings, desk, r)]
        if unwired:
            detail = (
                f"human rung unwired: the notify rung reaches no channel for {', '.join(unwired)} "
                "(pages wait in the outbox, `deskd pages`; add [[channels]] and "
                "default_channels, or set DESKD_NOTIFY_URLS)"
            )
            checks.append(Check("human rung", "warn", detail))
        else:
            names = ", ".join(sorted(all_channels(settings, desk))) or "none"
            checks.append(Check("human rung", "ok", f"every role pages ({names})"))
    literal, missing = [], []
    values = var_values(settings)
    for channel in desk.data.channels:
        for url in channel.urls:
            if literal_credentials(url, values):
                literal.append(f"{channel.name}: {shown_url(url, values)}")
            missing += [f"{channel.name}: ${{{m}}}" for m in missing_vars(url, values)]
        if channel.apprise_config and not os.path.isfile(channel.apprise_config):
            missing.append(f"{channel.name}: apprise_config {channel.apprise_config} not found")
    if literal:
        detail = (
            f"deskd.toml holds literal credentials ({'; '.join(literal)}): agents running as "
            "this user can read it; use ${VAR} from the environment or .env instead"
        )
        checks.append(Check("channel secrets", "warn", detail))
    elif desk.data.channels:
        checks.append(Check("channel secrets", "ok", "no literal credentials"))
    if missing:
        checks.append(Check("channel variables", "warn", "not set: " + "; ".join(missing)))
    return checks


def ways_in_checks(settings: Settings | None, desk: Desk) -> list[Check]:
    """The ways in besides the console: every ``[[events]]`` source's variable is set (else
    each of its deliveries is refused), and the reply mailbox logs in and opens its folder
    (the one check that goes on the network: it is what a tick would do)."""
    from deskd.service.paging.channels import missing_vars, var_values

    checks: list[Check] = []
    values = var_values(settings)
    unset = [
        f"{e.source}: {'secret' if e.secret else 'token'} ${{{name}}}"
        for e in desk.data.events
        for name in missing_vars(e.secret or e.token or "", values)
    ]
    if unset:
        detail = "; ".join(unset) + " not set (environment or .env): every delivery is refused"
        checks.append(Check("event sources", "fail", detail))
    elif desk.data.events:
        names = ", ".join(e.source for e in desk.data.events)
        checks.append(Check("event sources", "ok", f"{names}: each secret set"))
    url = settings.reply_imap_url if settings is not None else None
    if url:
        checks.append(mailbox_check(url))
    return checks


def mailbox_check(url: str) -> Check:
    """Log in to ``DESKD_REPLY_IMAP_URL`` and select its folder; shown without its password."""
    from urllib.parse import urlsplit

    from deskd.adapters.imap import ERRORS, mailbox

    parts = urlsplit(url)
    shown = f"{parts.scheme}://{parts.hostname}{f':{parts.port}' if parts.port else ''}{parts.path}"
    try:
        with mailbox(url):
            pass
    except ERRORS as exc:
        return Check("reply mailbox", "fail", f"{shown}: {exc} (DESKD_REPLY_IMAP_URL)")
    return Check("reply mailbox", "ok", f"{shown}: logged in, folder selected")
