"""The pool of PostgreSQL test databases: a reused database shows nothing of the test before.

Under the both-backend folders a PostgreSQL ``desk`` gets a database from a per-worker pool
(tests/pg_databases.py), reset after each test. A reused database must look like a fresh
copy of the migrated template: no rows, sequences where the template had them, no session
or lock left behind; and a test that changed the schema must not hand its database on.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inner_session import run_inner_session
from pg_databases import Pool, with_dbname


@pytest.fixture
def pool(pg_server: str, pg_template: str) -> Iterator[Pool]:
    with Pool(pg_server, pg_template) as made:  # a pool of this test's own
        yield made


def _connect(pool: Pool, name: str) -> Any:
    import psycopg

    return psycopg.connect(with_dbname(pool.server, name), autocommit=True)


def test_a_reused_database_holds_what_a_fresh_copy_holds(pool: Pool) -> None:
    from deskd.store.migrations import LATEST

    name = pool.take()
    first = _connect(pool, name)
    first_id = first.execute(
        "INSERT INTO events (at, kind) VALUES (1, 'a') RETURNING id"
    ).fetchone()[0]
    first.execute("INSERT INTO events (at, kind) VALUES (2, 'a')")
    first.execute("UPDATE deskd_schema SET version = 1")
    first.execute("SELECT pg_advisory_lock(4242)")
    first.execute("LISTEN deskd_pool_test")
    open_tx = _connect(pool, name)
    open_tx.execute("BEGIN")
    open_tx.execute("INSERT INTO events (at, kind) VALUES (3, 'open')")
    pool.give_back(name)  # both connections still open: a test that leaked them

    assert pool.take() == name  # reused, not copied again
    again = _connect(pool, name)
    try:
        assert again.execute("SELECT count(*) FROM events").fetchone()[0] == 0
        assert again.execute("SELECT version FROM deskd_schema").fetchall() == [(LATEST,)]
        next_id = again.execute(
            "INSERT INTO events (at, kind) VALUES (1, 'b') RETURNING id"
        ).fetchone()[0]
        assert next_id == first_id  # ids start where a fresh copy's start
        assert again.execute("SELECT pg_try_advisory_lock(4242)").fetchone()[0] is True
        sessions = again.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND backend_type = 'client backend'"
        ).fetchone()[0]
        assert sessions == 2  # this one and the pool's own: the leaked ones were ended
    finally:
        again.close()
        pool.give_back(name)
    for leaked in (first, open_tx):
        leaked.close()


def test_a_prepared_transaction_is_rolled_back(pool: Pool) -> None:
    name = pool.take()
    conn = _connect(pool, name)
    if int(conn.execute("SHOW max_prepared_transactions").fetchone()[0]) == 0:
        conn.close()
        pool.give_back(name)
        pytest.skip("the server allows no prepared transactions")
    conn.execute("BEGIN")
    conn.execute("INSERT INTO events (at, kind) VALUES (1, 'prepared')")
    conn.execute("PREPARE TRANSACTION 'deskd_pool_test'")
    conn.close()
    pool.give_back(name)

    assert pool.take() == name
    again = _connect(pool, name)
    try:
        assert again.execute("SELECT count(*) FROM pg_prepared_xacts").fetchone()[0] == 0
        assert again.execute("SELECT count(*) FROM events").fetchone()[0] == 0
    finally:
        again.close()
        pool.give_back(name)


@pytest.mark.parametrize(
    "change",
    [
        "ALTER TABLE events ADD COLUMN extra TEXT",
        "DROP INDEX events_at",
        "CREATE TABLE scratch (x INT)",
        "DROP TABLE events",
        "ALTER TABLE events ALTER COLUMN detail DROP DEFAULT",
        "CREATE FUNCTION one() RETURNS INT LANGUAGE SQL AS 'SELECT 1'",
        "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET work_mem = ''7MB''',"
        " current_database()); END $$",
    ],
)
def test_a_database_whose_schema_changed_is_dropped_not_reused(pool: Pool, change: str) -> None:
    name = pool.take()
    conn = _connect(pool, name)
    conn.execute(change)
    conn.close()
    pool.give_back(name)

    assert pool.dropped == [name]
    admin = _connect(pool, "postgres")
    try:
        gone = admin.execute("SELECT count(*) FROM pg_database WHERE datname = %s", (name,))
        assert gone.fetchone()[0] == 0
    finally:
        admin.close()
    fresh = pool.take()
    assert fresh != name
    pool.give_back(fresh)
    assert pool.free == [fresh]


INNER_ROWS = """
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest

NOTE = Path(os.environ["POOL_NOTE"]) / "rows"
LEAKED = []


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_a_leaves_rows_and_a_lock(desk):
    conn = psycopg.connect(desk.url, autocommit=True)
    LEAKED.append(conn)  # never closed: the next test must not see its lock
    first = conn.execute("INSERT INTO events (at, kind) VALUES (1, 'a') RETURNING id").fetchone()
    conn.execute("SELECT pg_advisory_lock(4242)")
    NOTE.write_text(f"{urlsplit(desk.url).path} {first[0]}")


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_b_sees_none_of_it(desk):
    path, first = NOTE.read_text().split()
    assert urlsplit(desk.url).path == path  # the same database, reused
    with psycopg.connect(desk.url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 0
        again = conn.execute("INSERT INTO events (at, kind) VALUES (1, 'b') RETURNING id")
        assert again.fetchone()[0] == int(first)
        assert conn.execute("SELECT pg_try_advisory_lock(4242)").fetchone()[0] is True
"""

INNER_SCHEMA = """
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest

NOTE = Path(os.environ["POOL_NOTE"]) / "schema"


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_c_changes_the_schema(desk):
    with psycopg.connect(desk.url, autocommit=True) as conn:
        conn.execute("ALTER TABLE events ADD COLUMN extra TEXT")
    NOTE.write_text(urlsplit(desk.url).path)


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_d_gets_a_database_at_the_template_schema(desk):
    assert urlsplit(desk.url).path != NOTE.read_text()
    with psycopg.connect(desk.url, autocommit=True) as conn:
        columns = conn.execute(
            "SELECT count(*) FROM information_schema.columns"
            " WHERE table_name = 'events' AND column_name = 'extra'"
        )
        assert columns.fetchone()[0] == 0
"""


def test_the_desk_fixture_reuses_databases_on_a_given_server_with_two_workers(
    pg_server: str, tmp_path: Path
) -> None:
    """Two workers share one given server (``DESKD_TEST_PG_URL``), each with its own pool;
    a folder of BOTH_BACKENDS gets pooled databases through the real ``desk`` fixture."""
    notes = tmp_path / "notes"
    notes.mkdir()
    done = run_inner_session(
        tmp_path,
        {"items/test_pool_rows.py": INNER_ROWS, "items/test_pool_schema.py": INNER_SCHEMA},
        "-n2",
        "--dist=loadfile",
        DESKD_TEST_PG_URL=pg_server,
        POOL_NOTE=str(notes),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed" in done.stdout, done.stdout
