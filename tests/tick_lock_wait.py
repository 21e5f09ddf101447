"""An executing tick waits out a busy write lock that a command gives up on (the scenario
that tests/wake and tests/relay run, directly and through the host's relay).

On a busy desk (a few hundred agents' hooks and executors writing) deskd's one write lock
can stay taken for seconds. A person's command gives up after its busy timeout (exit 3);
the tick, which nobody waits on, waits longer, so the minute's plan is recorded instead of
refused. Both are driven against a lock held from outside; the tick's wait is observed at
its ``begin`` (an event), not guessed from a clock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from conftest import Desk, urgent
from deskd.service.desk.context import open_context
from deskd.service.engine.tick import TickResult, run_tick


@contextmanager
def write_lock_held(desk: Desk) -> Iterator[None]:
    """deskd's write lock, taken by another connection as another writer would."""
    holder = desk.db()
    holder.begin(write=True) if desk.url is not None else holder.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        holder.execute("ROLLBACK")


class WatchedBegin:
    """Wraps a connection's ``begin``: ``writing`` is set once a write transaction asks for
    the lock."""

    def __init__(self, conn: Any, writing: threading.Event) -> None:
        self.real = conn.begin
        self.writing = writing
        conn.begin = self

    def __call__(self, *, write: bool) -> None:
        if write:
            self.writing.set()
        self.real(write=write)


def tick_waits_out_the_lock(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> str:
    """Hold the write lock; a tick asks for it, a command gives up meanwhile, the tick waits
    and records its plan once the lock is free. Returns the tick's connection's class name."""
    from deskd.service.engine.dispatch import Dispatched

    launched: list[int] = []  # the tick's launcher records (no executor races the check)

    def record(ctx: object, attempt_id: int, role: str) -> Dispatched:
        launched.append(attempt_id)
        return Dispatched(attempt_id=attempt_id, role=role, pid=0)

    monkeypatch.setattr("deskd.service.engine.tick.start_executor", record)
    urgent(desk)
    monkeypatch.setenv("DESKD_NOW", desk.now_iso)
    monkeypatch.setattr("deskd.store.db.DEFAULT_BUSY_MS", 200)  # a command's wait, shortened
    writing = threading.Event()
    outcome: dict[str, TickResult | BaseException] = {}

    kinds: list[str] = []

    def tick() -> None:  # the tick's own thread opens its context (SQLite's rule)
        ctx = open_context()
        try:
            kinds.append(type(ctx.conn).__name__)
            WatchedBegin(ctx.conn, writing)
            outcome["tick"] = run_tick(ctx, execute=True)
        except BaseException as exc:  # reported below, in the test's thread
            outcome["tick"] = exc
        finally:
            ctx.close()

    thread = threading.Thread(target=tick)
    try:
        with write_lock_held(desk):
            thread.start()
            assert writing.wait(60), f"the tick never asked for the write lock: {outcome}"
            # The tick is waiting for the lock; a command asking now gives up after its 200 ms.
            refused = desk.run(
                "inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "later"
            )
            assert refused.exit_code == 3, refused.stderr
            assert thread.is_alive(), f"the tick gave up with the command: {outcome}"
    finally:
        thread.join(60)
    assert not thread.is_alive()
    result = outcome["tick"]
    assert isinstance(result, TickResult), result
    assert result.error is None and result.skipped is None
    assert len(result.attempt_ids) == 1
    assert len(launched) == 1
    assert [i["title"] for i in desk.json("inbox", "list", "--for", "alpha")] == ["disk 91%"]
    return kinds[0]
