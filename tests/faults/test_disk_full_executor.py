"""A full disk never leaves a launch without its reason: the executor records the OSError
when the database still takes writes; when it died instead, the healing tick names the full
disk in the launch's detail."""

from __future__ import annotations

import errno
import os
from typing import Any

import pytest

from conftest import Desk, urgent


@pytest.fixture
def planned(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> int:
    """An urgent item and an executing tick that plans a launch (its executor not started)."""
    from deskd.service.engine.dispatch import Dispatched

    def record(ctx: object, attempt_id: int, role: str) -> Dispatched:
        return Dispatched(attempt_id=attempt_id, role=role, pid=0)

    monkeypatch.setattr("deskd.service.engine.tick.start_executor", record)
    urgent(desk)
    (launched,) = desk.json("tick", "--execute")["launched"]
    return int(launched["attempt_id"])


def _row(desk: Desk, attempt_id: int) -> dict[str, Any]:
    conn = desk.db()
    try:
        return dict(conn.execute("SELECT * FROM attempts WHERE id = ?", (attempt_id,)).fetchone())
    finally:
        conn.close()


def test_the_executor_records_a_full_disk(
    desk: Desk, planned: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deskd.service.desk.context import open_context
    from deskd.service.engine.executor import run_launch

    def full(*_args: object, **_kw: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "/desk/logs/agents/alpha/1.log")

    monkeypatch.setattr("deskd.service.engine.executor._run_with_retries", full)
    for name, value in desk.env().items():
        monkeypatch.setenv(name, value)
    ctx = open_context()
    try:
        result = run_launch(ctx, planned)
    finally:
        ctx.close()
    assert result.status == "failed"
    row = _row(desk, planned)
    assert row["launch_status"] == "failed"
    assert "No space left on device" in str(row["launch_detail"]), row


def test_the_next_tick_names_the_full_disk_when_the_executor_could_not(
    desk: Desk, planned: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deskd.store import attempts as attempt_rows

    conn = desk.db()
    conn.execute("BEGIN IMMEDIATE")
    attempt_rows.claim_launch(conn, planned, now=desk.now_ms)
    conn.execute("COMMIT")
    conn.close()  # running, and no executor holds the role's lock: it died

    class Full:
        f_bavail = 10
        f_frsize = 4096

    monkeypatch.setattr("deskd.service.engine.dispatch.os.statvfs", lambda _path: Full())
    desk.advance(minutes=1)
    desk.json("tick", "--execute")
    detail = str(_row(desk, planned)["launch_detail"])
    assert detail.startswith("executor died; the disk holding") and "is full" in detail
