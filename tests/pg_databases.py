"""PostgreSQL test databases: migrated once per test session, then reused from a pool.

A ``desk`` on the ``postgresql`` backend needs a database of its own at the current schema.
Migrating an empty one costs tens of milliseconds, a copy of a migrated template
(``CREATE DATABASE … TEMPLATE``, then ``DROP DATABASE``) still copies and WAL-logs the
catalogs and makes the first connections build their catalog caches from scratch; so under
the both-backend folders a test gets a database from a per-worker pool instead, reset after
the test it served (bench/pg_test_databases.py measures all three). The reset ends every
session on that database (advisory locks, LISTEN, open transactions go with them), rolls
back its prepared transactions, empties every table, puts back the template's rows and sets
every sequence where the template had it: the next test sees what a fresh copy would show.
A test that changed the schema (a downgrade, a dropped column, a database setting) leaves a
different fingerprint of the catalogs, and its database is dropped instead of reused. The
empty path stays for tests that judge a first open.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest


@contextmanager
def database(server: str, *, prefix: str, template: str | None = None) -> Iterator[str]:
    """A database of a unique name on ``server`` (a copy of ``template``, else empty), dropped
    afterwards even with a connection still open; yields its name."""
    import psycopg

    name = create(server, prefix=prefix, template=template)
    try:
        yield name
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            drop(admin, name)


def create(server: str, *, prefix: str, template: str | None = None) -> str:
    """A new database of a unique name on ``server`` (a copy of ``template``, else empty)."""
    import uuid

    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    copy = f' TEMPLATE "{template}"' if template else ""
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"{copy}')
    return name


def drop(admin: Any, name: str) -> None:
    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


FINGERPRINT = """
SELECT md5(string_agg(line, E'\\n' ORDER BY line)) FROM (
  SELECT 'ns ' || nspname AS line FROM pg_namespace
   WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'
  UNION ALL
  SELECT 'rel ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text || ' ' || c.relpersistence::text
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
  UNION ALL
  SELECT 'col ' || c.oid::regclass::text || ' ' || a.attnum || ' ' || a.attname || ' '
         || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull || ' '
         || a.attidentity::text || ' ' || a.attgenerated::text || ' ' || a.attcollation::text || ' '
         || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
     AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT 'idx ' || pg_get_indexdef(i.indexrelid) FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
  UNION ALL
  SELECT 'con ' || conrelid::regclass::text || ' ' || conname || ' '
         || pg_get_constraintdef(oid) FROM pg_constraint
   WHERE connamespace NOT IN (SELECT oid FROM pg_namespace
                               WHERE nspname LIKE 'pg\\_%' OR nspname = 'information_schema')
  UNION ALL
  SELECT 'trg ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL
  SELECT 'fn ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc) FROM pg_proc p
    JOIN pg_namespace n ON n.oid = p.pronamespace
   WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
  UNION ALL
  SELECT 'ext ' || extname || ' ' || extversion FROM pg_extension
  UNION ALL
  SELECT 'rule ' || rulename || ' ' || ev_class::regclass::text FROM pg_rewrite r
    JOIN pg_class c ON c.oid = r.ev_class JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
     AND r.rulename <> '_RETURN'
  UNION ALL
  SELECT 'set ' || array_to_string(setconfig, ',') FROM pg_db_role_setting
   WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
) AS shape
"""
"""One hash of everything a test could change in a database's schema: schemas, relations,
columns (types, defaults, identity), indexes, constraints, triggers, functions, rules,
extensions and the database's own settings (``ALTER DATABASE … SET``)."""


@dataclass
class Pool:
    """Databases at the template's schema and contents, reused test after test on one worker.

    ``take`` hands out a free one (a new copy of the template when none is free); ``give_back``
    resets it for the next test, or drops it when its schema no longer matches the template's.
    """

    server: str
    template: str
    shape: str = ""
    reset_sql: str = ""
    free: list[str] = field(default_factory=list)
    made: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    """Databases thrown away because their schema changed (names, for the tests)."""
    _admin: Any = field(default=None, repr=False)
    _keepers: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        import psycopg

        with psycopg.connect(with_dbname(self.server, self.template), autocommit=True) as conn:
            self.shape = _fingerprint(conn)
            self.reset_sql = _reset_sql(conn, self.shape)
        self._admin = psycopg.connect(self.server, autocommit=True)

    def take(self) -> str:
        import psycopg

        if self.free:
            return self.free.pop()
        name = create(self.server, prefix="deskd_p", template=self.template)
        self.made.append(name)
        # The reset's own session, kept open: a new one would build its catalog caches and
        # plan the reset again each time, ~4x the server CPU of the reset itself. It sits
        # idle (no transaction, no lock) while the test runs. A lock that somehow outlives
        # the ended sessions fails the reset (the database is dropped) instead of hanging.
        self._keepers[name] = psycopg.connect(
            with_dbname(self.server, name), autocommit=True, options="-c lock_timeout=60s"
        )
        return name

    def give_back(self, name: str) -> None:
        """Make ``name`` what a fresh copy of the template would be, and free it; or drop it."""
        import psycopg
        from psycopg import sql

        keeper = self._keepers[name]
        try:
            # Every other client session on it ends first: its locks, LISTENs and transactions
            # too. (An autovacuum worker there blocks no DELETE, and only a superuser may end it.)
            self._admin.execute(
                "SELECT count(pg_terminate_backend(pid, 10000)) FROM pg_stat_activity"
                " WHERE datname = %s AND pid NOT IN (pg_backend_pid(), %s)"
                " AND backend_type = 'client backend'",
                (name, keeper.info.backend_pid),
            )
            for (gid,) in self._admin.execute(
                "SELECT gid FROM pg_prepared_xacts WHERE database = %s", (name,)
            ).fetchall():
                keeper.execute(sql.SQL("ROLLBACK PREPARED {}").format(sql.Literal(gid)))
            keeper.execute(self.reset_sql)
        except psycopg.Error:  # the schema changed (or the reset failed): not reused
            self.dropped.append(name)
            self._forget(name)
            drop(self._admin, name)
            return
        self.free.append(name)

    def _forget(self, name: str) -> None:
        self.made.remove(name)
        self._keepers.pop(name).close()

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for name in list(self.made):
            self._forget(name)
            drop(self._admin, name)
        self.free.clear()
        self._admin.close()


def _fingerprint(conn: Any) -> str:
    return str(conn.execute(FINGERPRINT).fetchone()[0])


def _reset_sql(conn: Any, shape: str) -> str:
    """One statement (a DO block, so one round trip and one transaction) that takes a
    database back to the template's contents, or fails when its schema is not the template's
    (``shape``): every table emptied, children before the tables they reference, the
    template's rows put back, every sequence set where the template had it.

    DELETE, not TRUNCATE: a TRUNCATE gives each table and index new files, ~30x the server
    CPU of deleting the few rows a test wrote (bench/pg_test_databases.py)."""
    from psycopg import sql

    tables = [
        row[0]
        for row in conn.execute(
            "SELECT c.oid::regclass::text FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p')"
            " AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'"
            " ORDER BY 1"
        )
    ]
    edges = conn.execute(
        "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint"
        " WHERE contype = 'f' AND conrelid <> confrelid"
    ).fetchall()
    parts = [f"IF ({FINGERPRINT}) <> '{shape}' THEN RAISE EXCEPTION 'schema changed'; END IF"]
    parts += [f"DELETE FROM {table}" for table in _children_first(tables, edges)]
    for table in tables:
        names = ", ".join(
            row[0]
            for row in conn.execute(
                "SELECT quote_ident(attname) FROM pg_attribute WHERE attrelid = %s::regclass"
                " AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum",
                (table,),
            )
        )
        for row in conn.execute(f"SELECT {names} FROM {table}").fetchall():
            values = sql.SQL(", ").join(sql.Literal(v) for v in row).as_string(conn)
            parts.append(f"INSERT INTO {table} ({names}) OVERRIDING SYSTEM VALUE VALUES ({values})")
    sequences = conn.execute(
        "SELECT quote_ident(schemaname) || '.' || quote_ident(sequencename),"
        " coalesce(last_value, start_value), last_value IS NOT NULL FROM pg_sequences"
        " ORDER BY 1"
    ).fetchall()
    if sequences:
        values = ", ".join(f"('{seq}', {value}, {called})" for seq, value, called in sequences)
        parts.append(f"PERFORM setval(s::regclass, v, c) FROM (VALUES {values}) AS t(s, v, c)")
    body = ";\n".join(parts)
    return f"DO $reset$ BEGIN\n{body};\nEND $reset$"


def _children_first(tables: list[str], edges: list[tuple[str, str]]) -> list[str]:
    """``tables`` ordered so a table referencing another by a foreign key comes before it."""
    order: list[str] = []
    seen: set[str] = set()

    def visit(table: str) -> None:
        if table in seen:
            return
        seen.add(table)
        for child, parent in edges:
            if parent == table:
                visit(child)
        order.append(table)

    for table in tables:
        visit(table)
    return order


@pytest.fixture(scope="session")
def pg_template(pg_server: str) -> Iterator[str]:
    """The name of a database migrated to the current schema, once per test session (each
    xdist worker has its own session; the name is unique, so workers sharing one server via
    DESKD_TEST_PG_URL each have their own). Copying it skips the migrations per test."""
    from deskd.store.db import connect

    with database(pg_server, prefix="deskd_tpl") as name:
        connect(with_dbname(pg_server, name)).close()  # deskd's own migrations, as in production
        yield name


@pytest.fixture(scope="session")
def pg_pool(pg_server: str, pg_template: str) -> Iterator[Pool]:
    """This worker's pool of databases at the template's schema and contents."""
    with Pool(pg_server, pg_template) as pool:
        yield pool


@pytest.fixture
def pg_database(pg_server: str) -> Iterator[str]:
    """A fresh, empty database on the test server for one test; dropped after it."""
    with database(pg_server, prefix="deskd_t") as name:
        yield with_dbname(pg_server, name)


@pytest.fixture
def pg_migrated_database(pg_server: str, pg_pool: Pool) -> Iterator[str]:
    """A database of one test's own, already at the current schema and holding only what
    ``pg_template`` holds: one from the pool, reset (or dropped) when the test is over."""
    name = pg_pool.take()
    try:
        yield with_dbname(pg_server, name)
    finally:
        pg_pool.give_back(name)


def pg_fixture_for(request: pytest.FixtureRequest) -> str:
    """The database fixture a PostgreSQL ``desk`` uses: the migrated copy where the backend is
    parametrised by folder (those tests judge what deskd does with a desk, not how it sets one
    up), an empty database for a test marked ``empty_database`` and for tests elsewhere that
    choose the backend themselves (a database deskd never set up, first-open seeding)."""
    if request.node.get_closest_marker("empty_database"):
        return "pg_database"
    from conftest import BOTH_BACKENDS

    if BOTH_BACKENDS & set(Path(str(request.node.path)).parts):
        return "pg_migrated_database"
    return "pg_database"


def with_dbname(url: str, name: str) -> str:
    """``url`` with its database name replaced by ``name``."""
    return urlunsplit(urlsplit(url)._replace(path="/" + name))
