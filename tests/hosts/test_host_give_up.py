"""A host is "not ticking" only by the hosts table's last tick (a tick that found the tick
lock held counts), never because a launch handed to it did not start: that host's own tick,
planning or not, hands such a launch to itself again."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import DESK_TOML, Desk, urgent

BOUND = DESK_TOML.replace('title = "Beta"', 'title = "Beta"\nhost = "host-b"')


def test_a_launch_on_a_host_that_ticks_is_never_given_up_as_not_ticking(
    desk: Desk, tmp_path: Path
) -> None:
    if desk.backend == "sqlite":
        pytest.skip("hosts share a database only on PostgreSQL (a SQLite desk is one machine)")
    desk.write_desk(BOUND)
    started: list[tuple[str, int]] = []

    def record(ctx: object, attempt_id: int, role: str) -> object:
        from deskd.service.engine.dispatch import Dispatched

        started.append((str(ctx.settings.host_id), attempt_id))  # type: ignore[attr-defined]
        return Dispatched(attempt_id=attempt_id, role=role, pid=0)  # an executor that dies

    desk.monkeypatch.setattr("deskd.service.engine.tick.start_executor", record)
    urgent(desk, "beta")
    desk.json("tick", "--execute", DESKD_HOST_NAME="host-a")  # plans beta's launch for host-b
    desk.json("tick", "--execute", DESKD_HOST_NAME="host-b")  # host-b takes it; it never runs
    (launch,) = [a for h, a in started if h == "host-b"]
    # Another host plans every minute from now on: host-b's ticks find the lock held.
    with desk.holding("tick"):
        for _ in range(3):
            desk.advance(seconds=70)
            out = desk.json("tick", "--execute", DESKD_HOST_NAME="host-b")
            assert out["skipped"]
    assert [a for h, a in started if h == "host-b"].count(launch) >= 2  # handed to itself again
    desk.json("tick", "--execute", DESKD_HOST_NAME="host-a")
    row = (
        desk.db()
        .execute("SELECT launch_status, launch_detail FROM attempts WHERE id = ?", (launch,))
        .fetchone()
    )
    assert tuple(row) == ("planned", None), tuple(row)  # not given up: host-b ticks
    assert not desk.db().execute("SELECT id FROM pages WHERE role = 'beta'").fetchall()


def test_a_launch_on_a_host_that_stopped_ticking_is_given_up(desk: Desk) -> None:
    desk.write_desk(BOUND)
    desk.monkeypatch.setattr(
        "deskd.service.engine.tick.start_executor",
        lambda ctx, attempt_id, role: __import__(
            "deskd.service.engine.dispatch", fromlist=["Dispatched"]
        ).Dispatched(attempt_id=attempt_id, role=role, pid=0),
    )
    urgent(desk, "beta")
    desk.json("tick", "--execute", DESKD_HOST_NAME="host-a")
    desk.json("tick", "--execute", DESKD_HOST_NAME="host-b")  # its last tick
    desk.advance(minutes=4)  # past DESKD_TICK_OVERDUE (3m)
    desk.json("tick", "--execute", DESKD_HOST_NAME="host-a")
    detail = (
        desk.db()
        .execute(
            "SELECT launch_detail FROM attempts WHERE role = 'beta' AND launch_status = 'skipped'"
        )
        .fetchone()
    )
    assert detail is not None and "host-b" in detail[0]
