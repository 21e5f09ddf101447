"""The schema as an ordered registry of migrations, recorded in ``PRAGMA user_version``.

Rules (lessons 40–42): each migration runs once, in order, inside one write transaction;
never edit a released migration (``V1``, ``V2``, each constant of ``store/schema.py``), add a
new one; no comments inside its statements.

One registry serves both backends. A column's type is a slot (``$ID``, ``$INT``, ``$REAL``,
``$TEXT``) that ``TYPES`` fills per dialect; everything else in a migration is SQL both
accept. The SQLite text of every released migration is what it always was
(tests/store/test_store_migrations.py keeps its digest). PostgreSQL keeps the version in
``deskd_schema(version)``, one row, and runs the migrations under an advisory lock
(``MIGRATE_LOCK``), so hosts opening a fresh database at once run each exactly once.
"""

from __future__ import annotations

import sqlite3
import time

V1 = """
CREATE TABLE roles (
    name $TEXT PRIMARY KEY,
    title $TEXT NOT NULL DEFAULT '',
    enabled $INT NOT NULL DEFAULT 1,
    in_desk $INT NOT NULL DEFAULT 1,
    created_at $INT NOT NULL,
    updated_at $INT NOT NULL
);

CREATE TABLE sessions (
    id $ID,
    role $TEXT NOT NULL REFERENCES roles(name),
    native_id $TEXT,
    agent $TEXT NOT NULL DEFAULT '',
    state $TEXT NOT NULL CHECK (state IN ('working', 'resting', 'ended', 'superseded')),
    started_at $INT NOT NULL,
    ended_at $INT,
    end_reason $TEXT,
    last_heartbeat_at $INT,
    last_event $TEXT,
    last_tool $TEXT,
    activity $TEXT,
    wake_token $TEXT,
    heartbeats $INT NOT NULL DEFAULT 0,
    failure $TEXT,
    failure_detail $TEXT,
    failure_at $INT
);
CREATE UNIQUE INDEX sessions_native ON sessions(role, native_id) WHERE native_id IS NOT NULL;
CREATE INDEX sessions_role ON sessions(role, id);

CREATE TABLE items (
    id $ID,
    role $TEXT NOT NULL REFERENCES roles(name),
    message_id $TEXT,
    source $TEXT NOT NULL,
    sender $TEXT,
    priority $INT NOT NULL CHECK (priority BETWEEN 0 AND 3),
    title $TEXT NOT NULL,
    body $TEXT NOT NULL DEFAULT '',
    ref $TEXT,
    dedup_key $TEXT,
    dedup_count $INT NOT NULL DEFAULT 0,
    enqueued_at $INT NOT NULL,
    sla_due_at $INT NOT NULL,
    notified_at $INT,
    seen_at $INT,
    shown_session $TEXT,
    read_at $INT,
    read_by $TEXT
);
CREATE UNIQUE INDEX items_dedup_live ON items(role, dedup_key)
    WHERE dedup_key IS NOT NULL AND read_at IS NULL;
CREATE INDEX items_unread ON items(role, priority DESC, enqueued_at, id) WHERE read_at IS NULL;
CREATE INDEX items_message ON items(message_id) WHERE message_id IS NOT NULL;
CREATE INDEX items_read_at ON items(read_at) WHERE read_at IS NOT NULL;

CREATE TABLE events (
    id $ID,
    at $INT NOT NULL,
    kind $TEXT NOT NULL,
    role $TEXT,
    actor $TEXT,
    subject $TEXT,
    detail $TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX events_at ON events(at);

CREATE TABLE meta (
    key $TEXT PRIMARY KEY,
    value $TEXT NOT NULL
);
"""

V2 = """
CREATE TABLE attempts (
    id $ID,
    key $TEXT NOT NULL,
    kind $TEXT NOT NULL,
    role $TEXT NOT NULL REFERENCES roles(name),
    generation $INT NOT NULL DEFAULT 0,
    rung $TEXT NOT NULL,
    level $INT NOT NULL,
    reason $TEXT NOT NULL DEFAULT '',
    ref $TEXT,
    item_ids $TEXT NOT NULL DEFAULT '[]',
    task_ids $TEXT NOT NULL DEFAULT '[]',
    attempted_at $INT NOT NULL,
    due_at $INT,
    outcome $TEXT NOT NULL DEFAULT 'pending'
        CHECK (outcome IN ('pending', 'resolved', 'superseded', 'withdrawn', 'failed')),
    outcome_reason $TEXT,
    resolved_at $INT,
    supersedes $INT REFERENCES attempts(id),
    recycles $INT NOT NULL DEFAULT 0,
    skipped $TEXT,
    launch_status $TEXT
        CHECK (launch_status IN ('planned', 'running', 'finished', 'skipped', 'failed', 'timed_out')),
    launch_detail $TEXT,
    primary_id $INT REFERENCES attempts(id),
    wake_token $TEXT,
    prompt $TEXT,
    session_id $TEXT,
    planned_at $INT,
    launched_at $INT,
    landed_at $INT,
    finished_at $INT,
    exit_code $INT,
    failure_class $TEXT,
    failure_detail $TEXT,
    hold_until $INT,
    cost_usd $REAL,
    acked_at $INT,
    ack_until $INT,
    ack_note $TEXT
);
CREATE UNIQUE INDEX attempts_live_key ON attempts(key) WHERE outcome = 'pending';
CREATE INDEX attempts_role ON attempts(role, id);
CREATE INDEX attempts_in_flight ON attempts(role) WHERE launch_status IN ('planned', 'running');
CREATE INDEX attempts_launched ON attempts(role, launched_at) WHERE launched_at IS NOT NULL;
CREATE UNIQUE INDEX attempts_token ON attempts(wake_token) WHERE wake_token IS NOT NULL;
CREATE INDEX attempts_hold ON attempts(role, hold_until) WHERE hold_until IS NOT NULL;
CREATE INDEX attempts_primary ON attempts(primary_id) WHERE primary_id IS NOT NULL;

CREATE TABLE pages (
    id $ID,
    attempt_id $INT NOT NULL REFERENCES attempts(id),
    key $TEXT NOT NULL,
    role $TEXT NOT NULL,
    kind $TEXT NOT NULL DEFAULT 'page' CHECK (kind IN ('page', 'follow_up', 'settled', 'notice')),
    priority $INT NOT NULL DEFAULT 2,
    title $TEXT NOT NULL,
    body $TEXT NOT NULL DEFAULT '',
    status $TEXT NOT NULL DEFAULT 'queued'
        CHECK (status IN ('queued', 'held', 'sent', 'partial', 'failed', 'resolved')),
    created_at $INT NOT NULL,
    sent_at $INT,
    resolved_at $INT,
    next_try_at $INT,
    tries $INT NOT NULL DEFAULT 0,
    results $TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX pages_open ON pages(key) WHERE resolved_at IS NULL;
CREATE INDEX pages_attempt ON pages(attempt_id);
CREATE INDEX pages_notice ON pages(created_at, key) WHERE kind = 'notice';

CREATE TABLE hooks (
    id $ID,
    owner $TEXT NOT NULL REFERENCES roles(name),
    kind $TEXT NOT NULL CHECK (kind IN ('at', 'every', 'cron', 'probe')),
    spec $TEXT NOT NULL,
    title $TEXT NOT NULL,
    body $TEXT NOT NULL DEFAULT '',
    priority $INT NOT NULL DEFAULT 1,
    status $TEXT NOT NULL DEFAULT 'active'
        CHECK (status IN ('active', 'done', 'cancelled', 'disabled')),
    created_at $INT NOT NULL,
    until_at $INT,
    next_fire_at $INT,
    last_fire_at $INT,
    fire_count $INT NOT NULL DEFAULT 0,
    missed_count $INT NOT NULL DEFAULT 0,
    error_streak $INT NOT NULL DEFAULT 0,
    last_error $TEXT,
    retry_at $INT
);
CREATE INDEX hooks_due ON hooks(next_fire_at) WHERE status = 'active';
CREATE INDEX hooks_owner ON hooks(owner, status);

CREATE TABLE pauses (
    id $ID,
    role $TEXT,
    reason $TEXT NOT NULL,
    started_at $INT NOT NULL,
    ended_at $INT,
    started_by $TEXT,
    ended_by $TEXT
);
CREATE INDEX pauses_live ON pauses(id, role) WHERE ended_at IS NULL;
"""

from deskd.store import schema  # noqa: E402
from deskd.store.dialect import Connection  # noqa: E402

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; mypy reads it as True
if TYPE_CHECKING:
    from typing import Any

# Each migration keeps its place for ever: a released database records only its version
# number, so dropping or emptying an entry would silently renumber the ones after it.
# tests/store asserts every entry creates something.
MIGRATIONS: tuple[str, ...] = (
    V1,
    V2,
    schema.TASKS,
    schema.PAGER,
    schema.MEETINGS,
    schema.ROUTING,
    schema.CONSOLE,
    schema.SESSIONS_CURRENT,
    schema.LAUNCHES,
    schema.HOSTS,
    schema.LEASES,
    schema.CONSOLE_GUARD,
    schema.TICK_ALARMS,
    schema.SILENCES,
    schema.HELD_WORK,
    schema.USAGE,
    schema.DELIVERIES,
    schema.TASK_CHECKS,
    schema.PAGE_LINKS,
    schema.QUESTIONS,
)
"""Index i holds the migration that takes the schema from version i to version i + 1."""

LATEST = len(MIGRATIONS)
MIGRATE_LOCK = 2
"""Advisory-lock number (in deskd's lock class) that serializes migrations on PostgreSQL."""

TYPES: dict[str, dict[str, str]] = {
    "sqlite": {
        "ID": "INTEGER PRIMARY KEY AUTOINCREMENT",
        "INT": "INTEGER",
        "REAL": "REAL",
        "TEXT": "TEXT",
    },
    # Wider where SQLite's types are wider than PostgreSQL's names suggest: an INTEGER holds
    # millisecond times, so 64 bits; text compares byte-wise as in SQLite (COLLATE "C"), so
    # listings sort the same on both backends whatever the database's locale.
    "postgresql": {
        "ID": "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
        "INT": "BIGINT",
        "REAL": "DOUBLE PRECISION",
        "TEXT": 'TEXT COLLATE "C"',
    },
}
"""Each type slot of the migrations, spelled in each dialect."""


class SchemaTooNew(Exception):
    def __init__(self, found: int) -> None:
        super().__init__(
            f"the database is at schema version {found}, newer than this deskd knows "
            f"({LATEST}); upgrade deskd"
        )


def schema_version(conn: Any) -> int:
    """``PRAGMA user_version`` on SQLite; on PostgreSQL the one row of ``deskd_schema``, 0 for
    a database deskd never touched.

    On PostgreSQL one round trip when the table is there (every open but a desk's first): the
    statement is tried and a missing table answers 0. Inside a transaction an error would
    abort it, so there the catalog is asked first.
    """
    if conn.dialect == "sqlite":
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    found = "SELECT to_regclass('deskd_schema') IS NOT NULL"
    if conn.in_transaction and not conn.raw_execute(found).fetchone()[0]:
        return 0
    return int(conn.stored_version())


def ensure_current(conn: Connection, *, target: int = LATEST, found: int | None = None) -> int:
    """Run the migrations the database lacks, up to ``target``; returns the version reached.

    Cheap when current (one pragma read, no write; none when the caller passes the version
    it has just read as ``found``). Several processes opening a fresh file at once serialize
    on the write lock and re-read the version inside it, so each migration runs exactly once.
    """
    found = schema_version(conn) if found is None else found
    if found > LATEST:
        raise SchemaTooNew(found)
    if found >= target:
        return found
    sqlite = conn.dialect == "sqlite"
    if sqlite:
        _enable_wal(conn)
    try:
        if sqlite:
            conn.begin(write=True)
        else:  # under the migration lock, with a version row
            pg: Any = conn
            pg.raw_execute("BEGIN")
            pg.raw_execute(f"SELECT pg_advisory_xact_lock({pg.lock_class}, {MIGRATE_LOCK})")
            pg.raw_execute("CREATE TABLE IF NOT EXISTS deskd_schema (version BIGINT NOT NULL)")
            pg.raw_execute(
                "INSERT INTO deskd_schema (version) "
                "SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM deskd_schema)"
            )
        version = schema_version(conn)  # again, under the lock: a racing opener may have run
        while version < target:
            # executescript() would COMMIT first; run the statements one by one instead.
            for statement in statements(MIGRATIONS[version], conn.dialect):
                conn.execute(statement)
            version += 1
            conn.execute(
                f"PRAGMA user_version = {version}"
                if sqlite
                else f"UPDATE deskd_schema SET version = {version}"
            )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled back already; keep the real error
            conn.execute("ROLLBACK")
        raise
    return version


def _enable_wal(conn: Connection) -> None:
    from deskd.errors import StoreBusy

    # Switching to WAL needs a moment alone with the file; a racing first open may see
    # "database is locked" even with a busy timeout, so retry briefly.
    for attempt in range(50):
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except StoreBusy:
            if attempt == 49:
                raise
            time.sleep(0.02 * (attempt + 1))


def statements(script: str, dialect: str = "sqlite") -> list[str]:
    """A migration's statements in ``dialect``, one by one (``executescript`` would COMMIT
    first). A ``$`` that is not a type slot is refused (KeyError), never guessed at."""
    from string import Template

    parts = []
    buffer = ""
    for line in Template(script).substitute(TYPES[dialect]).splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                parts.append(buffer.strip())
            buffer = ""
    return parts
