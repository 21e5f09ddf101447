"""Read paths never write (lesson 43): an operator's `inbox list` and `ledger` leave every row
and the database's data_version alone, and work while a writer holds the lock."""

from __future__ import annotations

import sqlite3

import pytest

from conftest import Desk
from deskd.store.db import connect

READS = [
    ("inbox", "list", "--for", "alpha"),
    ("inbox", "list", "--for", "alpha", "--json"),
    ("inbox", "list", "--for", "beta", "--all"),
    ("ledger",),
    ("ledger", "--json"),
    ("ledger", "--for", "alpha", "--state", "overdue", "--json"),
    ("ledger", "--state", "queued"),
]


# Other read views (lesson 43 began with a board view).
OTHER_READS = [
    ("status",),
    ("status", "--json"),
    ("roles", "--json"),
    ("wake", "list", "--json"),
    ("hook", "list", "--json"),
    ("pages", "--json"),
    ("tick", "--dry-run", "--json"),
]


class Observer:
    """SQLite's ``data_version`` seen from another connection (it moves on any commit); on
    PostgreSQL the write lock is the witness: a read path never takes it (see below) and
    the row dump says the rest."""

    def __init__(self, desk: Desk) -> None:
        self.conn = sqlite3.connect(desk.db_path) if desk.backend == "sqlite" else None

    def version(self) -> int:
        if self.conn is None:
            return 0
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])


@pytest.fixture
def busy_desk(desk: Desk) -> Desk:
    for title in ("disk 91%", "cpu 99%"):
        desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", title)
    desk.ok(
        "send", "--from", "gamma", "--to", "alpha", "--to", "beta", "--subject", "s", "--body", "b"
    )
    desk.advance(minutes=45)  # some items are overdue now
    return desk


@pytest.mark.parametrize("args", READS, ids=" ".join)
def test_it_reads_without_writing(busy_desk: Desk, args: tuple[str, ...]) -> None:
    before = busy_desk.dump()
    observer = Observer(busy_desk)
    version = observer.version()
    busy_desk.ok(*args)
    assert observer.version() == version
    assert busy_desk.dump() == before


def test_it_does_not_sync_roles_on_a_read_path(busy_desk: Desk) -> None:
    # The roles table is brought in line with the desk inside write transactions only.
    busy_desk.write_desk(
        '[desk]\ntimezone = "America/New_York"\ninbox_sources = ["alert"]\n'
        '[[roles]]\nname = "alpha"\n[[roles]]\nname = "beta"\n'
    )
    before = busy_desk.dump()
    busy_desk.ok("ledger")
    busy_desk.ok("inbox", "list", "--for", "alpha")
    assert busy_desk.dump() == before


def test_it_reads_while_another_process_holds_the_write_lock(busy_desk: Desk) -> None:
    writer = connect(busy_desk.db_target)
    writer.begin(write=True)
    writer.execute("INSERT INTO events (at, kind) VALUES (1, 'held')")
    try:
        for args in READS:
            busy_desk.ok(*args)
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_it_writes_a_self_list_only_when_something_new_is_seen(busy_desk: Desk) -> None:
    busy_desk.ok("inbox", "list", role="alpha")
    observer = Observer(busy_desk)
    version = observer.version()
    before = busy_desk.dump()
    busy_desk.ok("inbox", "list", role="alpha")  # nothing unseen: a read
    assert observer.version() == version
    assert busy_desk.dump() == before


@pytest.mark.parametrize("args", OTHER_READS, ids=" ".join)
def test_it_shows_other_read_views_without_writing(busy_desk: Desk, args: tuple[str, ...]) -> None:
    before = busy_desk.dump()
    observer = Observer(busy_desk)
    version = observer.version()
    busy_desk.ok(*args)
    assert observer.version() == version
    assert busy_desk.dump() == before
