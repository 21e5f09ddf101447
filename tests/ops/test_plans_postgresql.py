"""On PostgreSQL too, the snapshot, the board, an executing tick and the session hook read
live rows through indexes: no plan reads a history table whole.

The SQLite counterpart (tests/wake/test_snapshot_indexes.py) reads SQLite's plans, which
follow the schema alone. PostgreSQL plans by statistics: on a handful of rows a sequential
scan is the right plan, so the desk here first gets a long history — every history table
grown to ``HISTORY`` closed rows spread over twenty roles, the way months of work leave
it — and ``ANALYZE``. Then each statement the work sends is explained (``EXPLAIN (FORMAT
JSON)``, with its real parameters) and refused if any node is a ``Seq Scan`` of a history
table, or an index scan of one with no index condition (the whole index, in order) over an
index that is not one of the partial indexes of live rows.

(A test folder outside the conftest's ``BOTH_BACKENDS``: these tests are PostgreSQL's own.)
"""

from __future__ import annotations

import io
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from conftest import DESK_TOML, Desk
from desk_history import LIVE, busy_desk
from deskd.service.desk.context import open_context
from deskd.service.engine.snapshot import load_snapshot
from deskd.store.dialect import Sql
from deskd.store.pg import PgConnection

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

HISTORY = 20_000
"""Closed rows added to each history table: enough that a scan costs more than an index."""

ROLES = ["alpha", "beta", "gamma", *(f"r{n:02d}" for n in range(17))]

SMALL = {"roles", "meta", "hosts", "deskd_schema"}
"""Rows per role or per desk, not per event: scanning these is not scanning history."""

ROLE = "(ARRAY[{}])[1 + g % {}]".format(", ".join(f"'{r}'" for r in ROLES), len(ROLES))
"""SQL for the role of history row ``g``: spread over every role."""

GROWN: dict[str, tuple[str, dict[str, str]]] = {
    "items": (
        "read_at IS NOT NULL",
        {"role": ROLE, "dedup_key": "NULL", "message_id": "NULL", "enqueued_at": "g",
         "read_at": "g + 1", "shown_session": "NULL"},
    ),
    "sessions": (
        "state IN ('ended', 'superseded')",
        {"role": ROLE, "native_id": "'old-' || g", "wake_token": "NULL", "started_at": "g",
         "last_heartbeat_at": "g", "ended_at": "g + 1"},
    ),
    "attempts": (
        "TRUE",
        {"role": ROLE, "key": "t.kind || ':' || " + ROLE, "outcome": "'resolved'",
         "launch_status": "'finished'", "wake_token": "NULL", "session_id": "NULL",
         "primary_id": "NULL", "supersedes": "NULL", "hold_until": "NULL",
         "attempted_at": "g", "due_at": "g", "resolved_at": "g + 1", "launched_at": "g",
         "dispatched_at": "g", "finished_at": "g + 1"},
    ),
    "events": ("TRUE", {"at": "g", "role": ROLE}),
    "tasks": (
        "status = 'done'",
        {"role": ROLE, "created_at": "g", "updated_at": "g", "closed_at": "g"},
    ),
    "task_notes": ("TRUE", {"task_id": "(SELECT MAX(id) FROM tasks) - g % 5000", "at": "g"}),
    "handoffs": ("TRUE", {"role": ROLE, "session_id": "NULL", "created_at": "g"}),
    "hooks": (
        "TRUE",
        {"owner": ROLE, "status": "'done'", "created_at": "g", "next_fire_at": "NULL",
         "last_fire_at": "g", "retry_at": "NULL"},
    ),
    "pauses": ("ended_at IS NOT NULL", {"role": ROLE, "started_at": "g", "ended_at": "g + 1"}),
    "silences": (
        "ended_at IS NOT NULL",
        {"role": ROLE, "started_at": "g", "until_at": "g + 1", "ended_at": "g + 1"},
    ),
    "pages": (
        "TRUE",
        {"role": ROLE, "key": "'old:' || g", "status": "'resolved'", "created_at": "g",
         "sent_at": "g", "resolved_at": "g + 1", "next_try_at": "NULL", "held_until": "NULL",
         "settled_id": "t.id", "attempt_id": "(SELECT MIN(id) FROM attempts) + g % 5000"},
    ),
    "meetings": (
        "TRUE",
        {"caller": ROLE, "state": "'closed'", "agenda_key": "'old-' || g", "called_at": "g",
         "last_activity_at": "g", "closed_at": "g + 1", "paused_kind": "NULL"},
    ),
    "meeting_messages": (
        "TRUE",
        {"meeting_id": "(SELECT MAX(id) FROM meetings) - 1 - g % 5000", "body_key": "'k' || g",
         "sender": ROLE, "reply_to": "NULL", "sent_at": "g"},
    ),
    "meeting_events": (
        "TRUE", {"meeting_id": "(SELECT MAX(id) FROM meetings) - 1 - g % 5000", "at": "g"}
    ),
    "meeting_obligations": (
        "TRUE",
        {"meeting_id": "(SELECT MAX(id) FROM meetings) - 1 - g % 5000",
         "message_id": "(SELECT MAX(id) FROM meeting_messages) - g", "debtor": ROLE,
         "status": "'settled'", "closed_at": "g + 1", "closed_by": "NULL"},
    ),
    "meeting_proposals": (
        "TRUE",
        {"meeting_id": "(SELECT MAX(id) FROM meetings) - 1 - g % 5000", "proposer": ROLE,
         "status": "'accepted'", "opened_at": "g", "closed_at": "g + 1"},
    ),
}  # fmt: skip
"""Per history table: which existing row to copy, and the columns that make each copy an
old, closed row of some role (the others keep the copied row's values)."""


def long_desk(desk: Desk) -> None:
    """The SQLite test's busy desk over twenty roles, plus a page, a silence and a pause that
    ended, and a meeting that spoke; then a long history (``grow_history``)."""
    roles = "".join(f'\n[[roles]]\nname = "{r}"\n' for r in ROLES[3:])
    desk.write_desk(DESK_TOML + roles)

    def more(meeting: str) -> None:
        desk.ok("page", "--from", "gamma", "--title", "need a human")
        desk.ok("silence", "add", "--role", "beta", "--for", "2h", "--reason", "x")
        desk.ok("silence", "end", "1")
        desk.ok("pause", "--role", "gamma", "--reason", "x")
        desk.ok("resume", "--role", "gamma")
        desk.ok("meeting", "check-in", meeting, "--role", "beta")
        desk.ok("meeting", "send", meeting, "--role", "alpha", "--body", "ok?", "--kind",
                "question")  # fmt: skip
        desk.ok("meeting", "propose-end", meeting, "--role", "alpha", "--resolution", "done")

    busy_desk(desk, more)
    grow_history(desk)


def grow_history(desk: Desk) -> None:
    """Copy one row of each history table ``HISTORY`` times as closed rows, then ANALYZE."""
    conn = desk.db()
    raw = conn.raw_execute  # type: ignore[attr-defined]
    for table, (template, overrides) in GROWN.items():
        columns = [
            str(r[0])
            for r in raw(
                "SELECT column_name FROM information_schema.columns WHERE table_name = "
                f"'{table}' AND column_name != 'id' ORDER BY ordinal_position"
            ).fetchall()
        ]
        assert set(overrides) <= set(columns), (table, set(overrides) - set(columns))
        source = raw(f"SELECT MIN(id) FROM {table} WHERE {template}").fetchone()[0]
        assert source is not None, f"the busy desk left no {table} row to copy"
        values = ", ".join(overrides.get(c, f"t.{c}") for c in columns)
        raw(
            f"INSERT INTO {table} ({', '.join(columns)}) SELECT {values} "
            f"FROM {table} AS t, generate_series(1, {HISTORY}) AS g WHERE t.id = {source}"
        )
    raw(
        "INSERT INTO meeting_attendees (meeting_id, role, status, invite_gen, invited_at) "
        f"SELECT id, {ROLE.replace('g %', 'id %')}, 'left', 1, called_at FROM meetings "
        "WHERE state = 'closed'"
    )
    raw(
        "INSERT INTO meeting_votes (proposal_id, role, vote, reason, at) "
        "SELECT id, proposer, 'confirm', '', opened_at FROM meeting_proposals "
        "WHERE status = 'accepted'"
    )
    raw(  # one help request per page ever asked for: they stay after the item is read
        "INSERT INTO help_requests (item_id, role, created_at) "
        "SELECT id, role, enqueued_at FROM items WHERE read_at IS NOT NULL"
    )
    raw(  # a passed check for every done task, an answered question for every read item
        "INSERT INTO task_checks (task_id, spec, timeout_s, state, finished_at, outcome) "
        "SELECT id, 'true', 60, 'passed', closed_at, 'passed' FROM tasks WHERE status = 'done'"
    )
    raw(
        "INSERT INTO questions (role, item_id, text, asked_at, expires_at, answer, answered_by, "
        "answered_at) SELECT role, id, 'q', enqueued_at, enqueued_at + 1, 'yes', 'supervisor', "
        "read_at FROM items WHERE read_at IS NOT NULL"
    )
    raw("ANALYZE")


def scans_of_history(plan: dict[str, Any], under_limit: bool = False) -> Iterator[str]:
    """Each node of ``plan`` that reads a history table (or a history index) whole."""
    kind, table = plan["Node Type"], plan.get("Relation Name")
    if table is not None and table not in SMALL:
        if kind == "Seq Scan":
            yield f"Seq Scan on {table}"
        elif (
            kind in ("Index Scan", "Index Only Scan")
            and "Index Cond" not in plan
            and plan["Index Name"] not in LIVE
            # A LIMIT stops an ordered read of the index after that many rows, unless a
            # filter makes it skip rows (``role = ?`` on the primary key's order).
            and not (under_limit and "Filter" not in plan)
        ):
            yield f"{kind} of all of {plan['Index Name']} on {table}"
    for child in plan.get("Plans", []):
        yield from scans_of_history(child, under_limit or kind == "Limit")


def history_scans(
    conn: sqlite3.Connection, statements: list[tuple[str, tuple[Any, ...]]]
) -> list[tuple[str, str]]:
    """(statement, node) for each plan node that reads a history table or index whole."""
    found = []
    checked = 0
    for sql, params in dict.fromkeys(statements):
        if not sql.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE", "WITH")):
            continue
        checked += 1
        (doc,) = conn.execute("EXPLAIN (FORMAT JSON) " + sql, params).fetchone()
        plan = (json.loads(doc) if isinstance(doc, str) else doc)[0]["Plan"]
        found += [(sql, node) for node in scans_of_history(plan)]
    assert checked, "no statement was traced"
    return found


@contextmanager
def traced(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, tuple[Any, ...]]]]:
    """Every statement (and its parameters) any deskd connection sends meanwhile."""
    statements: list[tuple[str, tuple[Any, ...]]] = []
    real = PgConnection.execute

    def execute(self: PgConnection, sql: str | Sql, params: Any = ()) -> Any:
        statements.append((sql.postgresql if isinstance(sql, Sql) else sql, tuple(params)))
        return real(self, sql, params)

    with monkeypatch.context() as patch:
        patch.setattr(PgConnection, "execute", execute)
        yield statements


def test_the_snapshot_board_hook_and_tick_read_only_live_rows(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One long desk for all four (growing it is most of the test's time), read in an order
    that leaves each the live rows it expects: snapshot, board, hook, executing tick."""
    import deskd.hook
    from deskd.service.engine.tick import run_tick
    from deskd.service.ops.board import board

    long_desk(desk)
    ctx = open_context()
    conn = desk.db()
    try:
        for name, work in (
            ("snapshot", lambda: load_snapshot(ctx.conn, ctx.desk, now=ctx.now)),
            ("board", lambda: board(ctx)),
        ):
            with traced(monkeypatch) as statements:
                work()
            assert history_scans(conn, statements) == [], name
        # The busy desk's executing tick started the hook's relay; its statements would run
        # in the relay's process, out of this trace: the hook works alone here.
        from deskd.relay.server import stop as stop_relay

        stop_relay(str(desk.home / "run"))
        monkeypatch.setenv("DESKD_ROLE", "alpha")
        with traced(monkeypatch) as statements:
            for event in ("SessionStart", "PostToolUse", "Stop"):
                payload = {"hook_event_name": event, "session_id": "a-1", "source": "startup"}
                stdin = io.TextIOWrapper(io.BytesIO(json.dumps(payload).encode()))
                monkeypatch.setattr("sys.stdin", stdin)
                monkeypatch.setattr("sys.stdout", io.StringIO())
                assert deskd.hook.run() == 0
        assert not (desk.home / "logs" / "hook.log").exists()
        words = {w for sql, _ in statements for w in sql.replace(",", " ").split()}
        assert {"sessions", "items", "help_requests", "tasks", "meeting_obligations"} <= words
        assert history_scans(conn, statements) == [], "session hook"
        with traced(monkeypatch) as statements:
            run_tick(ctx, execute=True)
        assert history_scans(conn, statements) == [], "executing tick"

        # The check itself: a whole-table read, and a whole-index read, are caught.
        grouped = [("SELECT role, COUNT(*) FROM sessions GROUP BY role", ())]
        assert history_scans(conn, grouped)
        every_item = [("SELECT id FROM items WHERE title = ?", ("x",))]
        assert history_scans(conn, every_item) == [(every_item[0][0], "Seq Scan on items")]
        in_order = [("SELECT id FROM events ORDER BY at", ())]
        conn.execute("SET enable_seqscan = off")  # the whole index, in order, instead
        try:
            found = history_scans(conn, in_order)
        finally:
            conn.execute("RESET enable_seqscan")
        assert found == [(in_order[0][0], "Index Scan of all of events_at on events")]
    finally:
        ctx.close()


def _indexes(plan: dict[str, Any]) -> set[str]:
    found = {str(plan["Index Name"])} if "Index Name" in plan else set()
    for child in plan.get("Plans", []):
        found |= _indexes(child)
    return found


def test_the_snapshot_reads_each_roles_session_through_its_role_index_at_1000_roles(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A desk of 1,000 roles, each with a live session and 100 ended ones: the live session
    of each role is found through ``sessions_role_live (role, id)``, never by reading every
    live session once per role (``sessions_live``, ordered by start: a thousand rows read a
    thousand times) nor every session ever recorded; likewise for the hand-offs, and all
    roles' idle-task wakes are one statement.
    """
    from deskd.service.engine.snapshot import load_snapshot

    names = [f"r{i:04d}" for i in range(1000)]
    desk.write_desk(DESK_TOML + "".join(f'\n[[roles]]\nname = "{n}"\n' for n in names))
    ctx = open_context()
    try:
        with ctx.write():  # seeds the roles table
            pass
        raw = ctx.conn.raw_execute  # type: ignore[attr-defined]
        raw(
            "INSERT INTO sessions (role, native_id, agent, state, started_at, ended_at, "
            "last_heartbeat_at, heartbeats) SELECT name, 'old-' || g || name, 'claude', "
            "'ended', g, g + 1, g, 1 FROM roles, generate_series(1, 100) AS g"
        )
        raw(
            "INSERT INTO sessions (role, native_id, agent, state, started_at, "
            "last_heartbeat_at, heartbeats) SELECT name, NULL, 'claude', 'working', "
            f"{ctx.now} - 60000, {ctx.now} - 30000, 1 FROM roles"
        )
        raw(
            "INSERT INTO tasks (role, title, status, priority, created_by, created_at, "
            f"updated_at) SELECT name, 'open', 'pending', 1, name, {ctx.now}, {ctx.now} "
            "FROM roles"
        )
        raw(
            "INSERT INTO handoffs (role, note, by, created_at) "
            f"SELECT name, 'left-off-marker', name, {ctx.now} - 50000 + g "
            "FROM roles, generate_series(1, 100) AS g"
        )
        raw("ANALYZE")
        with traced(monkeypatch) as statements:
            snapshot = load_snapshot(ctx.conn, ctx.desk, now=ctx.now)
        assert len(snapshot.roles) == 1003  # and alpha, beta, gamma
        assert {r.presence for r in snapshot.roles} == {"online"}
        assert all("left-off-marker" in r.prompt for r in snapshot.roles)
        # Only sessions and handoffs have a history here (the other tables' scans are of a
        # few rows, which the first test covers).
        found = [(s[:70], n) for s, n in history_scans(ctx.conn, statements)]
        assert [f for f in found if f[1].endswith((" sessions", " handoffs"))] == []
        # current_sessions: each role's session id, then the rows (the rollover sweep's read
        # of live sessions by start is sessions_live's own)
        reads = [(s, p) for s, p in statements if "FROM sessions" in s and "started_at <" not in s]
        assert len(reads) == 2
        indexes: set[str] = set()
        for sql, params in reads:
            (doc,) = ctx.conn.execute("EXPLAIN (FORMAT JSON) " + sql, params).fetchone()
            indexes |= _indexes((json.loads(doc) if isinstance(doc, str) else doc)[0]["Plan"])
        assert {"sessions_role_live", "sessions_pkey"} <= indexes
        assert "sessions_live" not in indexes
        assert sum("handoffs" in s for s, _ in statements) == 2  # ids, then rows
        assert sum("FROM w CROSS JOIN attempts" in s for s, _ in statements) == 1
    finally:
        ctx.close()
