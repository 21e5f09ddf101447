"""An executing tick waits out a busy write lock that a command gives up on.

On a busy desk (a few hundred agents' hooks and executors writing) deskd's one write lock
can stay taken for seconds. A person's command gives up after its busy timeout (exit 3);
the tick, which nobody waits on, waits longer, so the minute's plan is recorded instead of
refused (``tests/tick_lock_wait.py``; through the host's relay: tests/relay).
"""

from __future__ import annotations

import pytest

from conftest import Desk
from tick_lock_wait import tick_waits_out_the_lock


def test_an_executing_tick_waits_for_the_write_lock_past_a_commands_busy_timeout(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    kind = tick_waits_out_the_lock(desk, monkeypatch)
    assert kind == ("SqliteConnection" if desk.url is None else "PgConnection")
