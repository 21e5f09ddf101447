"""The migrations on PostgreSQL: the schema version kept in a table, the lock they run under.

The DDL itself is ``store/migrations.py``'s, with its type slots spelled for PostgreSQL
(``migrations.TYPES``).

Instead of ``PRAGMA user_version``: ``deskd_schema(version)``, one row. Migrations run in one
transaction under an advisory lock, so hosts opening a fresh database at once run each
migration exactly once (the version is re-read under the lock).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

MIGRATE_LOCK = 2
"""Advisory-lock number (in deskd's lock class) that serializes migrations."""


def schema_version(conn: Any) -> int:
    """The version in ``deskd_schema``; 0 for a database deskd never touched.

    One round trip when the table is there (every open but a desk's first): the statement is
    tried and a missing table answers 0. Inside a transaction an error would abort it, so
    there the catalog is asked first.
    """
    if conn.in_transaction and not _has_version_table(conn):
        return 0
    return int(conn.stored_version())


def _has_version_table(conn: Any) -> bool:
    row = conn.raw_execute("SELECT to_regclass('deskd_schema') IS NOT NULL").fetchone()
    return bool(row[0])


def ensure_current(
    conn: Any, migrations: Sequence[str], *, split: Callable[[str, str], list[str]], target: int
) -> int:
    """Run the migrations the database lacks, up to ``target``, under the migration lock;
    the version reached. ``split`` cuts one migration into its statements in a dialect
    (``store.migrations.statements``)."""
    conn.raw_execute("BEGIN")
    try:
        conn.raw_execute(f"SELECT pg_advisory_xact_lock({conn.lock_class}, {MIGRATE_LOCK})")
        conn.raw_execute("CREATE TABLE IF NOT EXISTS deskd_schema (version BIGINT NOT NULL)")
        version = schema_version(conn)
        if version == 0 and not conn.raw_execute("SELECT 1 FROM deskd_schema").fetchone():
            conn.raw_execute("INSERT INTO deskd_schema (version) VALUES (0)")
        while version < target:
            for statement in split(migrations[version], "postgresql"):
                conn.raw_execute(statement)
            version += 1
            conn.raw_execute(f"UPDATE deskd_schema SET version = {version}")
        conn.raw_execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.raw_execute("ROLLBACK")
        raise
    return version
