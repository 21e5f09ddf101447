"""An executing tick sends as many statements at 50 roles as at 5: none is sent once per role.

Every role has the same state — an open task (its idle-task wakes are counted for the stall
rule), a hand-off note, and a live session with no native id (online, so nothing is planned;
not resumable, so a fresh session would start from the hand-off) — and the tick is run once
to settle, then counted. On SQLite the connection's trace callback counts; on PostgreSQL the
adapter's ``execute``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conftest import DESK_TOML, Desk
from deskd.service.desk.context import DeskContext, open_context
from deskd.store.pg import PgConnection


def roles(n: int) -> list[str]:
    return [f"r{i:02d}" for i in range(n)]


def counted(ctx: DeskContext, work: Callable[[], Any], monkeypatch: pytest.MonkeyPatch) -> int:
    """How many statements ``work`` sends through ``ctx``'s connection."""
    statements: list[str] = []
    if isinstance(ctx.conn, PgConnection):
        real = PgConnection.execute

        def execute(self: PgConnection, sql: str, params: Any = ()) -> Any:
            statements.append(sql)
            return real(self, sql, params)

        with monkeypatch.context() as patch:
            patch.setattr(PgConnection, "execute", execute)
            work()
    else:
        ctx.conn.set_trace_callback(statements.append)
        try:
            work()
        finally:
            ctx.conn.set_trace_callback(None)
    return len(statements)


def tick_statements(desk: Desk, names: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """Give every role of ``names`` not yet on the desk its state, then count a quiet tick."""
    from deskd.service.engine.tick import run_tick
    from deskd.service.work.sessions import handoff
    from deskd.service.work.tasks import add_task
    from deskd.store.sessions import current_session, record_heartbeat

    desk.write_desk(DESK_TOML + "".join(f'\n[[roles]]\nname = "{n}"\n' for n in names))
    ctx = open_context()
    try:
        for name in names:
            with ctx.write() as conn:
                if current_session(conn, name) is not None:
                    continue
                record_heartbeat(conn, role=name, now=ctx.now)
            add_task(ctx, title=f"open task of {name}", role=name, by=name)
            handoff(ctx, role=name, note=f"where {name} left off")
        run_tick(ctx, execute=True)
    finally:
        ctx.close()
    ctx = open_context()
    try:
        return counted(ctx, lambda: run_tick(ctx, execute=True), monkeypatch)
    finally:
        ctx.close()


def test_an_executing_tick_sends_as_many_statements_at_50_roles_as_at_5(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    import deskd.service.engine.tick as tick_module

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the quiet tick launched an agent")

    monkeypatch.setattr(tick_module, "start_executor", refuse)
    few = tick_statements(desk, roles(5), monkeypatch)
    many = tick_statements(desk, roles(50), monkeypatch)
    assert few > 0
    assert many == few, f"{few} statements at 5 roles, {many} at 50"
