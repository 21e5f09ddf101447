"""Doctor's report line (``Check``) and its checks that read the database: of a SQLite file
(it opens, the full integrity check, the damage deskd remembered (``run/damaged``), a write
lock someone is holding, the schema version and WAL mode), or of a PostgreSQL server in its
place; each host's last executing tick; and each role's agent, workdir and worktree (a
missing agent CLI fails only once the database says ticks execute)."""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple, TypeVar

from deskd import paths
from deskd.config.settings import Settings
from deskd.core.timeparse import human_age
from deskd.errors import StoreError
from deskd.store.db import (
    clear_damage,
    damage_noted,
    integrity_problem,
    note_damage,
    write_locked,
)
from deskd.store.dialect import Connection

if TYPE_CHECKING:
    from deskd.config.desk import Desk

Level = Literal["ok", "warn", "fail"]
T = TypeVar("T")


class Check(NamedTuple):
    """One line of the report. A warning is ``ok``: it never fails the doctor."""

    name: str
    level: Level
    detail: str

    @property
    def ok(self) -> bool:
        return self.level != "fail"

    def as_json(self) -> dict[str, object]:
        return {"name": self.name, "ok": self.ok, "level": self.level, "detail": self.detail}

    @classmethod
    def unless(cls, name: str, problem: str | None, fine: str, *, level: Level = "fail") -> Check:
        """``problem`` at ``level`` when there is one, else ``fine``."""
        return cls(name, level, problem) if problem else cls(name, "ok", fine)


def database_checks(db: Path | str, home: Path) -> list[Check]:
    """The database's checks: a PostgreSQL server's, or a SQLite file's (``db`` empty: the
    setting is invalid)."""
    from deskd.store.db import is_url

    if not db:
        return [Check("database", "fail", "not checked: DESKD_DB is invalid (see settings)")]
    return postgres_checks(str(db)) if is_url(db) else sqlite_checks(Path(db), home)


def integrity_checks(conn: Connection, db: Path, run: Path) -> list[Check]:
    """``PRAGMA integrity_check`` (not ``quick_check``, which misses an index that lost rows
    of its table): damage is remembered (``run/damaged``) so no command writes into the file
    until it is sound again, when the marker is cleared."""
    damaged = integrity_problem(conn)
    if damaged is not None:
        note_damage(run, str(db), damaged)
        advice = (
            f"{db}: {damaged}; stop the tick (timer or cron), restore the file from a "
            f"backup, or salvage rows with `sqlite3 {db} .recover`"
        )
        return [Check("integrity", "fail", advice)]
    checks = [Check("integrity", "ok", "integrity_check: ok")]
    noted = damage_noted(run, str(db))
    if noted is not None and clear_damage(run, str(db)):
        cleared = (
            f"{run}/damaged removed: the file passes integrity_check now (earlier: "
            f"{noted}); commands use it again"
        )
        checks.append(Check("damage marker", "ok", cleared))
    return checks


def write_lock_check(conn: Connection, db: Path) -> Check:
    """Whether a write could start now: ``BEGIN IMMEDIATE`` then ``ROLLBACK`` writes nothing,
    and waits only the connection's short busy timeout."""
    held = write_locked(conn)
    problem = (
        None
        if held is None
        else (
            f"{db} is write-locked by another process ({held}): every command that writes "
            f"waits up to 5 s, then exits 3; find the holder with `fuser {db}`"
        )
    )
    return Check.unless(
        "write lock", problem, "no other process holds the write lock", level="warn"
    )


def sqlite_checks(db: Path, home: Path) -> list[Check]:
    """The database opens, is sound (``integrity_check``), no one holds its write lock, its
    schema is current, and it is in WAL mode. Never writes to it (it only removes the desk's
    ``run/damaged`` once the file is sound)."""
    from deskd.store.db import connect, journal_mode, was_created
    from deskd.store.migrations import schema_version

    if db.exists() and not db.is_file():
        return [Check("database", "fail", f"{db} is not a regular file: point DESKD_DB at one")]
    if not db.exists() or db.stat().st_size == 0:
        marker = paths.db_marker(home)
        if was_created(marker, str(db)):
            lost = (
                f"{db} is missing or empty but this desk had one ({marker}): restore it "
                "from a backup, or start over empty with `deskd init --new-db`"
            )
            return [Check("database", "fail", lost)]
        first = f"{db} not created yet (`deskd init` or the first command creates it)"
        return [Check("database", "warn", first)]
    try:
        conn = connect(db, create=False, migrate=False, busy_ms=1000)
    except (StoreError, OSError) as exc:
        return [Check("database", "fail", f"{db}: cannot open: {exc}")]
    try:
        version = schema_version(conn)
        mode = journal_mode(conn)
        sound = integrity_checks(conn, db, paths.run_dir(home))
        lock = write_lock_check(conn, db)
    except StoreError as exc:
        return [Check("database", "fail", f"{db}: not a deskd database: {exc}")]
    finally:
        conn.close()
    not_wal = (
        None
        if mode == "wal"
        else (
            f"journal_mode = {mode}; deskd needs WAL for concurrent readers "
            f"(sqlite3 {db} 'PRAGMA journal_mode=WAL')"
        )
    )
    return [
        Check("database", "ok", f"{db} opens"),
        *sound,
        lock,
        schema_check(version),
        Check.unless("wal mode", not_wal, "journal_mode = wal"),
    ]


def schema_check(version: int) -> Check:
    from deskd.store.migrations import LATEST

    if version < LATEST:
        return Check(
            "schema", "warn", f"version {version}; the next command migrates it to {LATEST}"
        )
    newer = f"version {version} is newer than this deskd ({LATEST}); upgrade"
    return Check.unless(
        "schema", newer if version > LATEST else None, f"version {version} (current)"
    )


OLDEST_SERVER = 130000
"""PostgreSQL 13: the oldest server deskd is tested against."""


def postgres_checks(url: str) -> list[Check]:
    """A PostgreSQL desk: it connects, the server is recent enough, the schema is current,
    a lease taken on one connection is seen and refused on another, and what sits between
    deskd and the server (a pooler) can serve it."""
    from deskd.store.db import redact

    shown = redact(url)
    try:
        from deskd.store.pg_probe import probe
    except ImportError:
        return [Check("database", "fail", "PostgreSQL needs psycopg: pip install 'deskd[pg]'")]
    try:
        found = probe(url)
    except StoreError as exc:
        advice = getattr(exc, "advice", None)
        detail = f"{shown}: {exc}; {advice}" if advice else f"{shown}: cannot connect: {exc}"
        return [Check("database", "fail", detail)]
    server = f"PostgreSQL {found.server_version}"
    old = f"{server}; deskd needs 13 or newer" if found.server_version_num < OLDEST_SERVER else None
    checks = [
        Check("database", "ok", f"{shown} connects"),
        Check.unless("server", old, server),
    ]
    if found.schema == 0:
        checks += [
            Check("schema", "warn", "empty: the first deskd command sets it up"),
            Check("locks", "warn", "leases are checked once the schema is set up"),
        ]
    else:
        round_trip = "lease round trip between two connections"
        checks += [
            schema_check(found.schema),
            Check.unless("locks", found.lock_round_trip, round_trip),
        ]
    pooled = (
        f"{found.pooler}: supported in session and transaction pooling "
        "(deskd keeps no session state)"
    )
    if found.pooler is None:
        checks.append(Check("pooler", "ok", "connected to the server itself"))
    else:
        problem = found.pooler_problem and f"{found.pooler}: {found.pooler_problem}"
        checks.append(Check.unless("pooler", problem, pooled))
    return checks


def read_db(db: Path | str, read: Callable[[Connection], T], default: T) -> T:
    """``read`` on the database opened without creating or migrating it; ``default`` when it
    does not open or the read fails (missing, damaged or an old schema: its checks say why)."""
    from deskd.store.db import connect

    try:
        with closing(connect(db, create=False, migrate=False, busy_ms=1000)) as conn:
            return read(conn)
    except Exception:
        return default


HOW_TO_LOOK = "`deskd timer status` or `deskd cron-line --check` shows the schedule"


def tick_checks(settings: Settings, db: Path | str, *, now: int) -> list[Check]:
    """The doctor's tick lines: one per host that ever ran an executing tick, a warning when
    one is overdue (never a failure: a desk may be ticked by hand). Read-only: the database
    is opened without creating or migrating it, and one the other checks already found
    wanting adds no line here."""
    from deskd.errors import DeskdError
    from deskd.service.desk.presence import is_overdue, overdue_after_s
    from deskd.store.hosts import list_hosts

    try:
        after_s = overdue_after_s(settings)
    except DeskdError as exc:
        return [Check("ticks", "fail", exc.message)]
    hosts = read_db(db, list_hosts, None)
    if hosts is None:  # the database checks say why it does not open or read
        return []
    if not hosts:
        none = "no executing tick recorded yet (a dry run records none); " + HOW_TO_LOOK
        return [Check("ticks", "warn", none)]
    checks: list[Check] = []
    for name, _first, last, _count in hosts:
        age = human_age((now - last) / 1000)
        fine = f"last executing tick {age} ago"
        overdue = (
            f"{fine}: overdue (none for {human_age(after_s)} or more; DESKD_TICK_OVERDUE); "
            + HOW_TO_LOOK
        )
        late = is_overdue(last, now=now, after_s=after_s)
        checks.append(
            Check.unless(f"ticks on {name}", overdue if late else None, fine, level="warn")
        )
    return checks


def role_checks(
    desk: Desk, settings: Settings | None, home: Path, search_path: str, *, db: Path | str | None
) -> list[Check]:
    """Each enabled role's agent executable, workdir and worktree (``db``: the database, None
    when it does not open)."""
    due = launching(settings, db)
    return [
        *agent_checks(desk, settings, search_path, launching=due),
        *workdir_checks(desk, home),
        *worktree_checks(desk, home),
    ]


def agent_checks(
    desk: Desk, settings: Settings | None, search_path: str, *, launching: bool = True
) -> list[Check]:
    """Each enabled role's agent executable, found on PATH the way a launch would find it;
    a missing one is a warning with the install hint until ``launching`` (ticks execute)."""
    import shutil

    from deskd.adapters.agents import KINDS

    checks = []
    missing_level: Level = "fail" if launching else "warn"
    for role in desk.enabled_roles:
        agent = desk.agent_for(role, settings)
        command = agent.command
        name = f"agent {role}"
        if not command:
            needs = (
                f'kind = "{agent.kind}" needs a command: set command in [agent] '
                "(or the role's agent table, or DESKD_AGENT_CMD)"
            )
            checks.append(Check(name, "fail", needs))
            continue
        found = shutil.which(command, path=search_path)
        if found:
            checks.append(Check(name, "ok", f"{agent.kind}: {command} → {found}"))
            continue
        hint = KINDS[agent.kind].install
        install = f"install the {agent.kind} CLI ({hint})" if hint else "install it"
        when = "" if launching else " (needed before its first launch: ticks run dry now)"
        if os.sep in command:
            detail = (
                f"{command} is missing or not executable{when}; {install}, or fix command "
                "in deskd.toml or DESKD_AGENT_CMD"
            )
        else:
            detail = (
                f"{command!r} not found on PATH ({search_path}){when}; {install}, or set "
                "command in [agent] (or DESKD_AGENT_CMD) to its absolute path"
            )
        checks.append(Check(name, missing_level, detail))
    return checks


def launching(settings: Settings | None, db: Path | str | None) -> bool:
    """Whether this desk's roles are due to launch: ticks execute (DESKD_WAKE_EXECUTE=1), or
    an executing tick has run against its database (None: one that does not open)."""
    if settings is not None and settings.execute:
        return True
    if db is None:
        return False
    from deskd.store.db import is_url
    from deskd.store.events import get_meta

    if not is_url(db) and (not Path(db).exists() or Path(db).stat().st_size == 0):
        return False
    return read_db(db, lambda conn: get_meta(conn, "last_tick_at") is not None, False)


def workdir_checks(desk: Desk, home: Path) -> list[Check]:
    """Each enabled role's workdir exists (resolved as a launch resolves it): a missing one
    fails every launch of that role."""
    from deskd.service.engine.launch_command import resolve_workdir

    checks = []
    for role in desk.enabled_roles:
        configured = desk.roles[role].workdir
        if configured is None:
            continue
        folder, problem = resolve_workdir(configured, home)
        fix = (
            f"{folder} {problem}: every launch of {role} would fail; create it or fix "
            f'workdir under [[roles]] name = "{role}" in deskd.toml'
        )
        checks.append(Check.unless(f"workdir {role}", problem and fix, str(folder)))
    return checks


def worktree_checks(desk: Desk, home: Path) -> list[Check]:
    """Each role with ``worktree`` set: its workdir is in a git repository, and its worktree
    (once made) is a checkout of its branch; uncommitted work is reported, never touched."""
    from deskd.adapters.process import GitFailed, git
    from deskd.errors import DeskdError
    from deskd.service.engine.launch_command import role_worktree
    from deskd.service.engine.worktrees import uncommitted

    checks = []
    for role in desk.enabled_roles:
        name = f"worktree {role}"
        try:
            tree = role_worktree(desk, home, role)
        except DeskdError as exc:
            fine = "no worktree yet" in exc.message  # made at the role's first launch
            checks.append(Check(name, "ok" if fine else "fail", exc.message))
            continue
        if tree is None:
            continue
        try:
            branch = git(tree.path, "branch", "--show-current").strip()
            dirty = uncommitted(tree.path)
        except GitFailed as exc:
            checks.append(Check(name, "fail", f"{tree.path}: {exc}"))
            continue
        if branch != tree.branch:
            checks.append(
                Check(name, "warn", f"{tree.path} is on {branch or 'no branch'}, not {tree.branch}")
            )
            continue
        held = f", {len(dirty)} uncommitted" if dirty else ""
        checks.append(Check(name, "ok", f"{tree.path} on {tree.branch}{held}"))
    return checks
