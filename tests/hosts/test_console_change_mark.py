"""The console's refresh cue follows the desk's database on either backend: it moves when a
command writes, and stays put while nothing does (reads, and the cue's own polling)."""

from __future__ import annotations

from conftest import Desk
from deskd.service.ops.console_views import change_mark
from deskd.settings import load_settings


def test_the_refresh_cue_moves_on_a_write_and_not_on_reads(desk: Desk) -> None:
    settings = load_settings(desk.env())
    desk.ok("status", "--json")  # opens (and on PostgreSQL migrates) the database
    before = change_mark(settings)
    desk.ok("inbox", "list", "--for", "alpha", "--json")
    assert change_mark(settings) == before
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk full")
    assert change_mark(settings) != before
