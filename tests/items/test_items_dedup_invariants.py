"""Dedup invariants (lesson 20): any sequence of enqueues, lists and acks keeps at most one
unread item per (role, key); and racing processes cannot create a second live item."""

from __future__ import annotations

import multiprocessing
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DESK_TOML
from deskd.config.desk_file import load_desk
from deskd.config.settings_model import validate_settings
from deskd.core.values import DEFAULT_SLA_S, PRIORITIES
from deskd.service.desk.context import DeskContext
from deskd.service.desk.inbox import NewItem, ack, enqueue, list_inbox

T0 = 1_796_133_600_000
ROLES = ("alpha", "beta")
KEYS = ("disk", "cpu", None)
RACE = 100  # enqueues per process


def _context(
    home: Path, *, role: str | None = None, now: int = T0, db: str | None = None
) -> DeskContext:
    env = {"DESKD_HOME": str(home)}
    if db:
        env["DESKD_DB"] = db
    if role:
        env["DESKD_ROLE"] = role
    settings_ = validate_settings(env)
    return DeskContext(settings=settings_, desk=load_desk(settings_.desk_path), now=now)


@dataclass
class Live:
    id: int
    priority: int
    due: int


@dataclass
class Model:
    """What the ledger should hold: the live (unread) item per (role, key)."""

    live: dict[tuple[str, str], Live] = field(default_factory=dict)


enqueues = st.tuples(
    st.just("enqueue"), st.sampled_from(ROLES), st.sampled_from(KEYS), st.sampled_from(PRIORITIES)
)
acks = st.tuples(st.just("ack_id"), st.sampled_from(ROLES), st.integers(0, 30), st.none())
seen_acks = st.tuples(st.just("ack_seen"), st.sampled_from(ROLES), st.none(), st.none())
lists = st.tuples(st.just("list"), st.sampled_from(ROLES), st.none(), st.none())
waits = st.tuples(st.just("wait"), st.none(), st.integers(0, 20 * 60_000), st.none())
operations = st.lists(st.one_of(enqueues, enqueues, acks, seen_acks, lists, waits), max_size=25)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
def test_it_keeps_at_most_one_unread_item_per_role_and_key(ops: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / "deskd.toml").write_text(DESK_TOML, encoding="utf-8")
        now = T0
        model = Model()
        contexts: dict[str | None, DeskContext] = {}

        def ctx(role: str | None = None) -> DeskContext:
            if role not in contexts:
                contexts[role] = _context(home, role=role)
            contexts[role].now = now
            return contexts[role]

        try:
            for op, role, arg, priority in ops:
                if op == "wait":
                    now += arg
                elif op == "enqueue":
                    rank = PRIORITIES.index(priority)
                    due = now + DEFAULT_SLA_S[priority] * 1000
                    item_id, deduped = enqueue(
                        ctx(),
                        NewItem(
                            role=role, source="alert", title="t", priority=priority, dedup_key=arg
                        ),
                    )
                    live = model.live.get((role, arg)) if arg else None
                    assert deduped == (live is not None)
                    if live is not None:
                        assert item_id == live.id
                        live.priority = max(live.priority, rank)
                        live.due = min(live.due, due)
                    elif arg:
                        model.live[(role, arg)] = Live(item_id, rank, due)
                elif op == "list":
                    list_inbox(ctx(role), role)
                elif op == "ack_id":
                    conn = ctx().conn
                    ids = [
                        r[0] for r in conn.execute("SELECT id FROM items WHERE role = ?", (role,))
                    ]
                    if ids:
                        ack(ctx(), role, ids=[ids[arg % len(ids)]], by="operator")
                else:
                    ack(ctx(), role, seen=True, by="operator")
                if op.startswith("ack"):
                    unread = {
                        r[0]
                        for r in ctx().conn.execute("SELECT id FROM items WHERE read_at IS NULL")
                    }
                    model.live = {k: v for k, v in model.live.items() if v.id in unread}

                rows = (
                    ctx()
                    .conn.execute(
                        "SELECT role, dedup_key, COUNT(*), MAX(id), MAX(priority), MIN(sla_due_at) "
                        "FROM items WHERE read_at IS NULL AND dedup_key IS NOT NULL "
                        "GROUP BY role, dedup_key"
                    )
                    .fetchall()
                )
                found = {(r[0], r[1]): tuple(r[2:]) for r in rows}
                expected = {k: (1, v.id, v.priority, v.due) for k, v in model.live.items()}
                assert found == expected
        finally:
            for c in contexts.values():
                c.close()


def _enqueue_many(home: str, db: str | None, barrier: Any, results: Any, count: int) -> None:
    os.environ.pop("DESKD_ROLE", None)
    outcomes: list[Any] = []
    try:
        ctx = _context(Path(home), db=db)
        barrier.wait(timeout=60)
        try:
            for n in range(count):
                ctx.now = T0 + n
                item = NewItem(role="alpha", source="alert", title="flap", dedup_key="flap")
                outcomes.append(enqueue(ctx, item))
        finally:
            ctx.close()
    except Exception as exc:  # report it to the parent instead of leaving it waiting
        outcomes.append(("error", repr(exc)))
    results.put(outcomes)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_it_keeps_one_live_item_when_two_processes_race_on_a_key(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    """On PostgreSQL the race is between two connections to one server, as between hosts."""
    db = request.getfixturevalue("pg_database") if backend == "postgresql" else None
    (tmp_path / "deskd.toml").write_text(DESK_TOML, encoding="utf-8")
    _context(tmp_path, db=db).conn.close()  # a migrated desk; each process opens its own connection
    fork = multiprocessing.get_context("fork")
    barrier = fork.Barrier(2)
    results = fork.Queue()
    workers = [
        fork.Process(target=_enqueue_many, args=(str(tmp_path), db, barrier, results, RACE))
        for _ in range(2)
    ]
    for w in workers:
        w.start()
    outcomes = [results.get(timeout=120) for _ in workers]
    for w in workers:
        w.join(timeout=60)
    assert [w.exitcode for w in workers] == [0, 0]
    flat = [o for batch in outcomes for o in batch]
    assert len(flat) == 2 * RACE
    assert {item_id for item_id, _ in flat} == {1}
    assert sum(1 for _, deduped in flat if not deduped) == 1
    ctx = _context(tmp_path, db=db)
    try:
        rows = ctx.conn.execute("SELECT id, dedup_count FROM items").fetchall()
        assert [tuple(r) for r in rows] == [(1, 2 * RACE - 1)]
    finally:
        ctx.close()
