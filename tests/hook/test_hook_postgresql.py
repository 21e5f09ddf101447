"""The session hook's failures on a PostgreSQL desk: the counterparts of the SQLite-file cases
in test_hook_failures (a database deskd never set up, a writer holding the lock, a database
no deskd write has seeded). The rest of the hook's behaviour runs on both backends in
test_hook_events, test_hook_surfacing, test_hook_tokens and test_briefing."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from hook_helpers import HookDesk, HookRun, fixture

from conftest import Desk
from deskd.store.db import connect, transaction

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)


@pytest.fixture
def hd(desk: Desk) -> HookDesk:
    return HookDesk(desk)


def assert_silent(run: HookRun) -> None:
    assert (run.code, run.stdout, run.stderr) == (0, "", "")


def test_a_database_deskd_never_set_up_is_logged_and_left_alone(hd: HookDesk) -> None:
    assert hd.desk.dump() == {"sequences": []}
    assert_silent(hd.hook(fixture("post_tool_use")))
    assert f"no desk database at {hd.desk.url}" in hd.log_text()
    assert hd.desk.dump() == {"sequences": []}  # no schema created, nothing written


def test_a_writer_holding_the_lock_is_given_up_on_quickly(hd: HookDesk) -> None:
    hd.enqueue("alpha", "disk 91%", priority="urgent")
    # The same hook for another role, unlocked and just before: what starting it costs on
    # this machine at this moment, so the bound below is on the wait, not on the load.
    started = time.monotonic()
    assert_silent(hd.hook(fixture("post_tool_use"), role="beta"))
    unlocked = time.monotonic() - started
    before = hd.desk.dump()
    holder = hd.desk.db()
    with transaction(holder):  # deskd's write lock, as a long write on another host holds it
        started = time.monotonic()
        run = hd.hook(fixture("post_tool_use"))
        elapsed = time.monotonic() - started
    assert_silent(run)
    assert elapsed - unlocked < 10  # it waits BUSY_MS (1.5 s), never for the holder
    assert "lock timeout" in hd.log_text()
    assert hd.desk.dump() == before  # no heartbeat, nothing marked shown
    assert "disk 91%" in hd.hook(fixture("post_tool_use")).context()


def test_a_role_the_desk_file_declares_is_seeded_on_a_fresh_database(hd: HookDesk) -> None:
    assert hd.desk.url is not None
    connect(hd.desk.url).close()  # a migrated database no deskd write has seeded
    hd.hook(fixture("post_tool_use"))
    assert len(hd.sessions()) == 1  # alpha is in deskd.toml: seeded, heartbeat recorded
    assert_silent(hd.hook(fixture("post_tool_use"), role="zeta"))
    assert "unknown role 'zeta'" in hd.log_text()


PROBE = """
import json, sys
from deskd.hook import run
run()
sys.stderr.write(json.dumps(sorted(sys.modules)))
"""


def test_surfacing_loads_the_store_and_psycopg_and_nothing_else_of_deskd(hd: HookDesk) -> None:
    hd.enqueue("alpha", "disk 91%")
    env = hd.env()
    env.pop("DESKD_NOW")  # the real clock, as in a session
    stdin = json.dumps(fixture("post_tool_use")).encode()
    done = subprocess.run(
        [sys.executable, "-c", PROBE], input=stdin, env=env, capture_output=True, check=True
    )
    modules = json.loads(done.stderr)
    assert hd.shown_ids() != [] and "psycopg" in modules
    ours = [m for m in modules if m.split(".")[0] == "deskd"]
    light = ("deskd.store", "deskd.paths", "deskd.session_ids", "deskd.hook", "deskd.core")
    assert [m for m in ours if m.startswith("deskd.core")] in (
        [],
        ["deskd.core", "deskd.core.text"],
    )
    assert [m for m in ours if not m.startswith(light)] == ["deskd"]
    # Not the stored records (they need typing), nor the doctor's probe; no CLI or settings stack.
    assert not [m for m in ours if m.startswith(("deskd.store.records", "deskd.store.pg_probe"))]
    assert not [m for m in modules if m.split(".")[0] in ("pydantic", "click", "apprise")]
