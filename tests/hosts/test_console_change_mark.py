"""The console's refresh cue follows the desk's database on either backend: it moves when a
command writes and stays put while nothing does. On PostgreSQL it is the desk's own
``NOTIFY`` channel (store/pg_listen.py): a command's write notifies, in its transaction
(the enqueue above is a role's writer); the session hook's and a rolled-back write do not."""

from __future__ import annotations

import time

import pytest

from conftest import Desk
from deskd.config.load import load_settings
from deskd.service.ops.console_views import change_mark
from deskd.store.db import transaction

BOUND_S = 120.0
"""How long a notification may take to arrive: the wait ends when it does; only a lost one
reaches the bound."""


def moved(settings: object, before: tuple[int, ...]) -> tuple[int, ...]:
    deadline = time.monotonic() + BOUND_S
    while (mark := change_mark(settings)) == before and time.monotonic() < deadline:  # type: ignore[arg-type]
        time.sleep(0.02)
    return mark


def test_the_refresh_cue_moves_on_a_write(desk: Desk) -> None:
    settings = load_settings(desk.env())
    desk.ok("status", "--json")  # opens (and on PostgreSQL migrates) the database
    before = change_mark(settings)
    desk.ok("inbox", "list", "--for", "alpha", "--json")
    assert change_mark(settings) == before
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk full")
    assert moved(settings, before) != before


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_only_committed_desk_wide_writes_notify(desk: Desk) -> None:
    import psycopg

    from deskd.store.pg import CHANNEL

    desk.ok("roles")
    listener = psycopg.connect(desk.url or "", autocommit=True)
    channel = listener.execute(f"SELECT {CHANNEL}").fetchone()[0]  # type: ignore[index]
    listener.execute(f'LISTEN "{channel}"')
    conn = desk.db()
    with transaction(conn, roles="alpha", notify=False):
        pass  # the hook's writer: no notification (it would take the server-wide lock)
    with pytest.raises(RuntimeError), transaction(conn):
        raise RuntimeError("rolled back: says nothing")
    with transaction(conn):
        pass  # a desk-wide writer: one notification
    conn.raw_execute("SELECT pg_notify(%s, 'end')", (channel,))  # type: ignore[attr-defined]
    said = []
    for note in listener.notifies(timeout=BOUND_S):  # in commit order: 'end' comes last
        said.append(note.payload)
        if note.payload == "end":
            break
    listener.close()
    assert said == ["", "end"]
