"""What deskd's write transactions serialize on PostgreSQL (docs/architecture.md, "What is
serialized"): a transaction that changes one role's rows (the session hook's, an executor's,
a command's for one role) waits for desk-wide writers and for that role's own, never for
another role's; a desk-wide writer waits for every one of them. And the invariant the role's lock keeps: racing hooks of one
role leave one live session for it (on SQLite too, where every writer is the one writer)."""

from __future__ import annotations

import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from conftest import Desk
from deskd import hook
from deskd.errors import StoreBusy
from deskd.store.db import transaction

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hook"))
from hook_helpers import HookDesk, fixture

LONG_MS = 600_000
"""A wait that must not happen: a begin that waited this long fails the test by hanging
far past any answer, never by racing the machine's speed."""


def begun(desk: Desk, *, role: str | None, busy_ms: int) -> object:
    conn = desk.db()
    conn.busy_ms = busy_ms
    conn.begin(write=True, role=role)
    return conn


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_writers_of_two_roles_do_not_wait_for_each_other_but_a_desk_writer_waits_for_both(
    desk: Desk,
) -> None:
    desk.ok("roles")
    alpha = begun(desk, role="alpha", busy_ms=LONG_MS)
    beta = begun(desk, role="beta", busy_ms=LONG_MS)  # alpha holds its lock: no wait
    for role in ("alpha", None):  # the same role, and a desk-wide writer, wait
        with pytest.raises(StoreBusy, match="lock timeout"):
            begun(desk, role=role, busy_ms=100)
    for conn in (alpha, beta):
        conn.execute("ROLLBACK")  # type: ignore[attr-defined]
    whole = begun(desk, role=None, busy_ms=LONG_MS)
    with pytest.raises(StoreBusy, match="lock timeout"):
        begun(desk, role="gamma", busy_ms=100)  # a desk-wide writer holds every role
    whole.execute("ROLLBACK")  # type: ignore[attr-defined]
    with transaction(desk.db(), role="gamma"):
        pass  # free again


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_a_command_for_one_role_does_not_wait_for_another_roles_writer(desk: Desk) -> None:
    """An enqueue for alpha while beta's executor is mid-write: it would otherwise wait out
    its 5 s for the lock and exit 3."""
    desk.ok("roles")
    beta = begun(desk, role="beta", busy_ms=LONG_MS)
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk full")
    beta.execute("ROLLBACK")  # type: ignore[attr-defined]


def waiting_for_locks(desk: Desk) -> int:
    conn = desk.db()
    try:
        row = conn.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        ).fetchone()
    finally:
        conn.close()
    return int(row[0])


def test_racing_hooks_of_two_roles_leave_one_live_session_each(desk: Desk) -> None:
    """Twelve heartbeats with new session ids, six a role, let go at once: on PostgreSQL
    held back by a desk-wide writer until every one waits for its locks."""
    hd = HookDesk(desk)
    desk.ok("roles")  # the database exists, its roles seeded, before the race
    failures: list[object] = []

    def heartbeat(role: str) -> None:
        native = str(uuid.uuid4())
        conn = desk.db()  # in its thread: a SQLite connection stays in the one that made it
        conn.busy_ms = LONG_MS
        try:
            hook.surface(conn, fixture("post_tool_use", session_id=native),
                         event="PostToolUse", role=role, native=native, now=desk.now_ms,
                         env=hd.env(role), out=lambda *_: None, note=failures.append)  # fmt: skip
        except BaseException as exc:
            failures.append(exc)
        finally:
            conn.close()

    holder = desk.db()
    holder.busy_ms = LONG_MS
    holder.begin(write=True)
    threads = [threading.Thread(target=heartbeat, args=(role,)) for role in ("alpha", "beta") * 6]
    for thread in threads:
        thread.start()
    while desk.url is not None and waiting_for_locks(desk) < 12:
        time.sleep(0.01)  # polls for a state, not for time to pass
    holder.execute("ROLLBACK")
    for thread in threads:
        thread.join()
    assert failures == []
    for role in ("alpha", "beta"):
        states = [row["state"] for row in hd.sessions(role)]
        assert len(states) == 6, states
        assert sum(s in ("working", "resting") for s in states) == 1, states
