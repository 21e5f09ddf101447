"""PostgreSQL test databases migrated once: a template per test session, copied per test.

A ``desk`` on the ``postgresql`` backend needs a database of its own. Migrating an empty one
is most of what creating it costs, and every test under the both-backend folders would pay
it; ``CREATE DATABASE … TEMPLATE`` copies a migrated one instead (bench/pg_test_databases.py
measures both). The empty path stays for tests that judge a first open.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest


@contextmanager
def database(server: str, *, prefix: str, template: str | None = None) -> Iterator[str]:
    """A database of a unique name on ``server`` (a copy of ``template``, else empty), dropped
    afterwards even with a connection still open; yields its name."""
    import uuid

    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    copy = f' TEMPLATE "{template}"' if template else ""
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"{copy}')
    try:
        yield name
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def pg_template(pg_server: str) -> Iterator[str]:
    """The name of a database migrated to the current schema, once per test session (each
    xdist worker has its own session; the name is unique, so workers sharing one server via
    DESKD_TEST_PG_URL each have their own). Copying it skips the migrations per test."""
    from deskd.store.db import connect

    with database(pg_server, prefix="deskd_tpl") as name:
        connect(with_dbname(pg_server, name)).close()  # deskd's own migrations, as in production
        yield name


@pytest.fixture
def pg_database(pg_server: str) -> Iterator[str]:
    """A fresh, empty database on the test server for one test; dropped after it."""
    with database(pg_server, prefix="deskd_t") as name:
        yield with_dbname(pg_server, name)


@pytest.fixture
def pg_migrated_database(pg_server: str, pg_template: str) -> Iterator[str]:
    """A database of one test's own, already at the current schema (a copy of ``pg_template``:
    CREATE DATABASE … TEMPLATE copies its files, migrations and all)."""
    with database(pg_server, prefix="deskd_t", template=pg_template) as name:
        yield with_dbname(pg_server, name)


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
