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

from conftest import Desk, urgent
from deskd import hook
from deskd.errors import StoreBusy
from deskd.store.db import transaction

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hook"))
from hook_helpers import HookDesk, fixture

LONG_MS = 600_000
"""A wait that must not happen: a begin that waited this long fails the test by hanging
far past any answer, never by racing the machine's speed."""


def begun(desk: Desk, *, roles: list[str] | None, busy_ms: int) -> object:
    conn = desk.db()
    conn.busy_ms = busy_ms
    conn.begin(write=True, roles=roles)
    return conn


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_writers_of_two_roles_do_not_wait_for_each_other_but_a_desk_writer_waits_for_both(
    desk: Desk,
) -> None:
    desk.ok("roles")
    alpha = begun(desk, roles=["alpha"], busy_ms=LONG_MS)
    beta = begun(desk, roles=["beta"], busy_ms=LONG_MS)  # alpha holds its lock: no wait
    for roles in (["alpha"], None):  # the same role, and a desk-wide writer, wait
        with pytest.raises(StoreBusy, match="lock timeout"):
            begun(desk, roles=roles, busy_ms=100)
    for conn in (alpha, beta):
        conn.execute("ROLLBACK")  # type: ignore[attr-defined]
    whole = begun(desk, roles=None, busy_ms=LONG_MS)
    with pytest.raises(StoreBusy, match="lock timeout"):
        begun(desk, roles=["gamma"], busy_ms=100)  # a desk-wide writer holds every role
    whole.execute("ROLLBACK")  # type: ignore[attr-defined]
    with transaction(desk.db(), roles="gamma"):
        pass  # free again


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_a_command_for_one_role_does_not_wait_for_another_roles_writer(desk: Desk) -> None:
    """An enqueue for alpha while beta's executor is mid-write: it would otherwise wait out
    its 5 s for the lock and exit 3."""
    desk.ok("roles")
    beta = begun(desk, roles=["beta"], busy_ms=LONG_MS)
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk full")
    beta.execute("ROLLBACK")  # type: ignore[attr-defined]


SHORT_MS = 300
"""Long enough for any begin that finds its locks free (a lock timeout counts only waiting)."""


def hook_call(desk: Desk, role: str, *, busy_ms: int) -> None:
    """The session hook's write for ``role`` (a heartbeat with a new session id)."""
    native = str(uuid.uuid4())
    conn = desk.db()
    conn.busy_ms = busy_ms
    try:
        hook.surface(conn, fixture("post_tool_use", session_id=native), event="PostToolUse",
                     role=role, native=native, now=desk.now_ms, env=HookDesk(desk).env(role),
                     out=lambda *_: None, note=lambda _: None)  # fmt: skip
    finally:
        conn.close()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_the_ticks_plan_write_for_one_role_holds_back_no_other_role(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While an executing tick writes its plan for alpha (held open in ``record_plan``),
    beta's hook and an enqueue for beta go through at once, and alpha's hook waits; beta's
    used to wait for the whole plan write (it took the desk lock alone)."""
    from deskd.service.desk.context import open_context
    from deskd.service.engine import tick
    from deskd.service.engine.dispatch import Dispatched

    desk.ok("roles")
    urgent(desk, "alpha")
    plans: list[object] = []
    failures: list[BaseException] = []
    in_plan, release = threading.Event(), threading.Event()
    record_plan = tick.record_plan

    def held_open(conn: object, plan: object, *, now: int) -> object:
        written = record_plan(conn, plan, now=now)  # type: ignore[arg-type]
        plans.append(plan)
        in_plan.set()
        release.wait()
        return written

    monkeypatch.setattr(tick, "record_plan", held_open)
    monkeypatch.setattr(
        tick, "start_executor", lambda _ctx, a, r: Dispatched(attempt_id=a, role=r, pid=0)
    )
    monkeypatch.setenv("DESKD_HOOK_RELAY", "off")

    def run() -> None:
        ctx = open_context(now=desk.now_ms)
        try:
            tick.run_tick(ctx, execute=True)
        except BaseException as exc:
            failures.append(exc)
        finally:
            in_plan.set()  # a tick that failed before its plan lets the test go on
            ctx.close()

    ticking = threading.Thread(target=run)
    ticking.start()
    in_plan.wait()
    try:
        assert failures == [] and {a.role for a in plans[0].attempts} == {"alpha"}  # type: ignore[attr-defined]
        hook_call(desk, "beta", busy_ms=SHORT_MS)
        desk.ok("inbox", "enqueue", "--for", "beta", "--source", "alert", "--title", "disk full")
        with pytest.raises(StoreBusy, match="lock timeout"):
            hook_call(desk, "alpha", busy_ms=SHORT_MS)
    finally:
        release.set()
        ticking.join()
    assert failures == []
    hook_call(desk, "alpha", busy_ms=LONG_MS)  # free again


def begin_into(began: list[object], desk: Desk, roles: list[str]) -> None:
    began.append(begun(desk, roles=roles, busy_ms=LONG_MS))


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_a_writer_of_several_roles_takes_their_locks_in_one_order(desk: Desk) -> None:
    """Named in either order, two roles' locks are taken in the order of their keys: a writer
    waiting for the second already holds the first (two writers each holding a lock the
    other waits for would deadlock)."""
    desk.ok("roles")
    first, second = (
        r[0] for r in desk.db().execute(
            "SELECT name FROM (VALUES ('alpha'), ('beta')) AS r(name) ORDER BY hashtext(name)"
        ).fetchall()
    )  # fmt: skip
    for order in ([first, second], [second, first]):
        holder = begun(desk, roles=[second], busy_ms=LONG_MS)
        began: list[object] = []
        waiter = threading.Thread(target=begin_into, args=(began, desk, order))
        waiter.start()
        while waiting_for_locks(desk) < 1:
            time.sleep(0.01)  # polls for a state, not for time to pass
        with pytest.raises(StoreBusy, match="lock timeout"):
            begun(desk, roles=[first], busy_ms=SHORT_MS)  # the waiter holds it
        holder.execute("ROLLBACK")  # type: ignore[attr-defined]
        waiter.join()
        began[0].execute("ROLLBACK")  # type: ignore[attr-defined]


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
