"""The migrations on PostgreSQL: the schema version kept in a table, the lock they run under.

Instead of ``PRAGMA user_version``: ``deskd_schema(version)``, one row. ``store.migrations``
runs them in one transaction under an advisory lock, so hosts opening a fresh database at
once run each migration exactly once (the version is re-read under the lock).
"""

from __future__ import annotations

from typing import Any

MIGRATE_LOCK = 2
"""Advisory-lock number (in deskd's lock class) that serializes migrations."""


def schema_version(conn: Any) -> int:
    """The version in ``deskd_schema``; 0 for a database deskd never touched.

    One round trip when the table is there (every open but a desk's first): the statement is
    tried and a missing table answers 0. Inside a transaction an error would abort it, so
    there the catalog is asked first.
    """
    found = "SELECT to_regclass('deskd_schema') IS NOT NULL"
    if conn.in_transaction and not conn.raw_execute(found).fetchone()[0]:
        return 0
    return int(conn.stored_version())


def begin(conn: Any) -> None:
    """Begin the migrations' transaction: under the migration lock, with a version row."""
    conn.raw_execute("BEGIN")
    conn.raw_execute(f"SELECT pg_advisory_xact_lock({conn.lock_class}, {MIGRATE_LOCK})")
    conn.raw_execute("CREATE TABLE IF NOT EXISTS deskd_schema (version BIGINT NOT NULL)")
    conn.raw_execute(
        "INSERT INTO deskd_schema (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM deskd_schema)"
    )
