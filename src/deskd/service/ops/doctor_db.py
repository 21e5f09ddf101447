"""Doctor's checks of a SQLite file beyond "it opens": the full integrity check, the damage
deskd remembered (``run/damaged``), and a write lock someone is holding."""

from __future__ import annotations

from pathlib import Path

from deskd.service.ops.doctor import Check
from deskd.store.db import clear_damage, damage_noted, integrity_problem, write_locked
from deskd.store.dialect import Connection


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
