"""Doctor's report line (``Check``) and its checks of the database: of a SQLite file (it
opens, the full integrity check, the damage deskd remembered (``run/damaged``), a write lock
someone is holding, the schema version and WAL mode), or of a PostgreSQL server in its place;
and each host's last executing tick."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal, NamedTuple, TypeVar

from deskd import paths
from deskd.config.settings import Settings
from deskd.core.timeparse import human_age
from deskd.errors import StoreError
from deskd.service.desk.tick_overdue import is_overdue, overdue_after_s
from deskd.store.db import (
    clear_damage,
    damage_noted,
    integrity_problem,
    note_damage,
    write_locked,
)
from deskd.store.dialect import Connection

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


def integrity_checks(conn: Connection, db: Path, run: Path) -> list[Check]:
    """``PRAGMA integrity_check`` (not ``quick_check``, which misses an index that lost rows
    of its table): damage is remembered (``run/damaged``) so no command writes into the file
    until it is sound again, when the marker is cleared."""
    damaged = integrity_problem(conn)
    if damaged is not None:
        note_damage(run, str(db), damaged)
        return [
            Check(
                "integrity",
                "fail",
                f"{db}: {damaged}; stop the tick (timer or cron), restore the file from a "
                f"backup, or salvage rows with `sqlite3 {db} .recover`",
            )
        ]
    checks = [Check("integrity", "ok", "integrity_check: ok")]
    noted = damage_noted(run, str(db))
    if noted is not None and clear_damage(run, str(db)):
        checks.append(
            Check(
                "damage marker",
                "ok",
                f"{run}/damaged removed: the file passes integrity_check now (earlier: "
                f"{noted}); commands use it again",
            )
        )
    return checks


def write_lock_check(conn: Connection, db: Path) -> Check:
    """Whether a write could start now: ``BEGIN IMMEDIATE`` then ``ROLLBACK`` writes nothing,
    and waits only the connection's short busy timeout."""
    held = write_locked(conn)
    if held is not None:
        return Check(
            "write lock",
            "warn",
            f"{db} is write-locked by another process ({held}): every command that writes "
            f"waits up to 5 s, then exits 3; find the holder with `fuser {db}`",
        )
    return Check("write lock", "ok", "no other process holds the write lock")


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
            return [
                Check(
                    "database",
                    "fail",
                    f"{db} is missing or empty but this desk had one ({marker}): restore it "
                    "from a backup, or start over empty with `deskd init --new-db`",
                )
            ]
        return [
            Check(
                "database",
                "warn",
                f"{db} not created yet (`deskd init` or the first command creates it)",
            )
        ]
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
    checks = [Check("database", "ok", f"{db} opens"), *sound, lock]
    checks.extend(schema_checks(version))
    if mode == "wal":
        checks.append(Check("wal mode", "ok", "journal_mode = wal"))
    else:
        checks.append(
            Check(
                "wal mode",
                "fail",
                f"journal_mode = {mode}; deskd needs WAL for concurrent readers "
                f"(sqlite3 {db} 'PRAGMA journal_mode=WAL')",
            )
        )
    return checks


def schema_checks(version: int) -> list[Check]:
    from deskd.store.migrations import LATEST

    if version == LATEST:
        return [Check("schema", "ok", f"version {version} (current)")]
    if version < LATEST:
        return [
            Check("schema", "warn", f"version {version}; the next command migrates it to {LATEST}")
        ]
    return [
        Check("schema", "fail", f"version {version} is newer than this deskd ({LATEST}); upgrade")
    ]


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
    checks = [Check("database", "ok", f"{shown} connects")]
    if found.server_version_num >= OLDEST_SERVER:
        checks.append(Check("server", "ok", f"PostgreSQL {found.server_version}"))
    else:
        checks.append(
            Check("server", "fail", f"PostgreSQL {found.server_version}; deskd needs 13 or newer")
        )
    if found.schema == 0:
        checks.append(Check("schema", "warn", "empty: the first deskd command sets it up"))
    else:
        checks.extend(schema_checks(found.schema))
    if found.schema == 0:
        checks.append(Check("locks", "warn", "leases are checked once the schema is set up"))
    elif found.lock_round_trip is None:
        checks.append(Check("locks", "ok", "lease round trip between two connections"))
    else:
        checks.append(Check("locks", "fail", found.lock_round_trip))
    if found.pooler is None:
        checks.append(Check("pooler", "ok", "connected to the server itself"))
    elif found.pooler_problem is None:
        checks.append(
            Check(
                "pooler",
                "ok",
                f"{found.pooler}: supported in session and transaction pooling "
                "(deskd keeps no session state)",
            )
        )
    else:
        checks.append(Check("pooler", "fail", f"{found.pooler}: {found.pooler_problem}"))
    return checks


def read_db(db: Path | str, read: Callable[[Connection], T], default: T) -> T:
    """``read`` on the database opened without creating or migrating it; ``default`` when it
    does not open or the read fails (missing, damaged or an old schema: its checks say why)."""
    from deskd.store.db import connect

    try:
        conn = connect(db, create=False, migrate=False, busy_ms=1000)
    except Exception:
        return default
    try:
        return read(conn)
    except Exception:
        return default
    finally:
        conn.close()


HOW_TO_LOOK = "`deskd timer status` or `deskd cron-line --check` shows the schedule"


def tick_checks(settings: Settings, db: Path | str, *, now: int) -> list[Check]:
    """The doctor's tick lines: one per host that ever ran an executing tick, a warning when
    one is overdue (never a failure: a desk may be ticked by hand). Read-only: the database
    is opened without creating or migrating it, and one the other checks already found
    wanting adds no line here."""
    from deskd.errors import DeskdError
    from deskd.store.hosts import list_hosts

    try:
        after_s = overdue_after_s(settings)
    except DeskdError as exc:
        return [Check("ticks", "fail", exc.message)]
    hosts = read_db(db, list_hosts, None)
    if hosts is None:  # the database checks say why it does not open or read
        return []
    if not hosts:
        return [
            Check(
                "ticks",
                "warn",
                "no executing tick recorded yet (a dry run records none); " + HOW_TO_LOOK,
            )
        ]
    checks: list[Check] = []
    for name, _first, last, _count in hosts:
        age = human_age((now - last) / 1000)
        if is_overdue(last, now=now, after_s=after_s):
            detail = (
                f"last executing tick {age} ago: overdue (none for {human_age(after_s)} or "
                f"more; DESKD_TICK_OVERDUE); {HOW_TO_LOOK}"
            )
            checks.append(Check(f"ticks on {name}", "warn", detail))
        else:
            checks.append(Check(f"ticks on {name}", "ok", f"last executing tick {age} ago"))
    return checks
