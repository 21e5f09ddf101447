"""The console's refresh cue follows the desk's database on either backend: it moves when a
command writes. On SQLite it also stays put while nothing writes; PostgreSQL's cue is the
cluster's write-ahead log position, which other databases on the server move too (a spare
refresh, never a missed one), so only the move is checked there."""

from __future__ import annotations

from conftest import Desk
from deskd.config.load import load_settings
from deskd.service.ops.console_views import change_mark


def test_the_refresh_cue_moves_on_a_write(desk: Desk) -> None:
    settings = load_settings(desk.env())
    desk.ok("status", "--json")  # opens (and on PostgreSQL migrates) the database
    before = change_mark(settings)
    desk.ok("inbox", "list", "--for", "alpha", "--json")
    if desk.backend == "sqlite":
        assert change_mark(settings) == before
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk full")
    assert change_mark(settings) != before
