"""``deskd migrate-db``: copy a SQLite desk into an empty PostgreSQL database, all or nothing.

The target is migrated to the current schema first (the same registry as every desk), then
every table's rows are copied with their ids, in an order that satisfies the foreign keys:
parents before children, and a table's references to its own rows (an attempt's
``supersedes``, a message's ``reply_to``) filled in after all its rows are in. Identity
counters then continue after the highest id copied. One transaction: a failure leaves
the target as empty as it was.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from graphlib import TopologicalSorter
from typing import Any, cast

from deskd.store.db import SqliteConnection
from deskd.store.dialect import Connection

BATCH = 500


class TargetNotEmpty(Exception):
    def __init__(self, table: str) -> None:
        super().__init__(
            f"the target database already has rows in {table}: migrate-db copies into an "
            "empty deskd database only"
        )


def open_source(path: str) -> SqliteConnection:
    """The SQLite desk to copy, read-only (it is never changed)."""
    src = sqlite3.connect(f"file:{path}?mode=ro", uri=True, factory=SqliteConnection)
    src.row_factory = sqlite3.Row
    return src


def _tables(src: SqliteConnection) -> list[str]:
    rows = src.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name"
    ).fetchall()
    return [str(r[0]) for r in rows]


def _parents(src: SqliteConnection, table: str) -> tuple[set[str], list[str]]:
    """(other tables it references, its own columns that reference itself)."""
    others, own = set(), []
    for fk in src.execute(f"PRAGMA foreign_key_list({table})").fetchall():
        if fk["table"] == table:
            own.append(str(fk["from"]))
        else:
            others.add(str(fk["table"]))
    return others, own


def _ordered(src: SqliteConnection, tables: Iterable[str]) -> list[tuple[str, list[str]]]:
    """Each table after the tables it references, with its columns that reference itself."""
    refs = {t: _parents(src, t) for t in tables}
    order = TopologicalSorter({t: parents for t, (parents, _) in refs.items()}).static_order()
    return [(t, refs[t][1]) for t in order]


def copy_desk(src: SqliteConnection, dst: Connection) -> dict[str, int]:
    """Copy every row of ``src`` (SQLite, current schema) into ``dst`` (PostgreSQL, empty);
    the rows copied per table."""
    from deskd.store.db import transaction
    from deskd.store.pg import PgConnection

    pg = cast(PgConnection, dst)
    tables = _tables(src)
    copied: dict[str, int] = {}
    with transaction(dst):
        for table in tables:
            if pg.raw_execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is not None:
                raise TargetNotEmpty(table)
        for table, self_refs in _ordered(src, tables):
            copied[table] = _copy_table(src, pg, table, self_refs)
    return copied


def _copy_table(src: SqliteConnection, pg: Any, table: str, self_refs: list[str]) -> int:
    columns = [str(c["name"]) for c in src.execute(f"PRAGMA table_info({table})").fetchall()]
    names = ", ".join(columns)
    marks = ", ".join(["%s"] * len(columns))
    later = [columns.index(c) for c in self_refs]
    cursor = src.execute(f"SELECT {names} FROM {table} ORDER BY rowid")
    count = 0
    with pg.raw.cursor() as out:
        while batch := cursor.fetchmany(BATCH):
            rows = [tuple(None if i in later else v for i, v in enumerate(r)) for r in batch]
            out.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows)
            count += len(rows)
        for column in self_refs:
            pairs = src.execute(
                f"SELECT {column}, id FROM {table} WHERE {column} IS NOT NULL"
            ).fetchall()
            if pairs:
                out.executemany(
                    f"UPDATE {table} SET {column} = %s WHERE id = %s", [tuple(p) for p in pairs]
                )
    if "id" in columns:  # every ``id`` is an identity ($ID): it continues after the last copied
        pg.raw_execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
            f"COALESCE((SELECT MAX(id) FROM {table}), 1), "
            f"(SELECT MAX(id) FROM {table}) IS NOT NULL)"
        )
    return count
