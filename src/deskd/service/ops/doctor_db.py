"""Doctor's report line (``Check``) and its checks of a SQLite file: it opens, the full
integrity check, the damage deskd remembered (``run/damaged``), a write lock someone is
holding, the schema version and WAL mode."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, NamedTuple

from deskd import paths
from deskd.errors import StoreError
from deskd.store.db import clear_damage, damage_noted, integrity_problem, write_locked
from deskd.store.dialect import Connection

Level = Literal["ok", "warn", "fail"]


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
    of its table); the damage marker cleared once the file is sound again."""
    damaged = integrity_problem(conn, full=True)
    if damaged is not None:
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


def sqlite_checks(
    db: Path, *, marker: Path | None = None, db_home: Path | None = None
) -> list[Check]:
    """The database opens, is sound (``integrity_check``), no one holds its write lock, its
    schema is current, and it is in WAL mode. Never writes to it (it only removes the desk's
    ``run/damaged`` once the file is sound)."""
    from deskd.store.db import connect, journal_mode, was_created
    from deskd.store.migrations import schema_version

    if db.exists() and not db.is_file():
        return [Check("database", "fail", f"{db} is not a regular file: point DESKD_DB at one")]
    if not db.exists() or db.stat().st_size == 0:
        if marker is not None and was_created(marker, str(db)):
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
        sound = integrity_checks(conn, db, paths.run_dir(db_home or db.parent))
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
