"""One threshold says a host stopped ticking: ``DESKD_TICK_OVERDUE``. Changing it moves every
user at once: capability routing, the board's hosts and the healing tick's give-up."""

from __future__ import annotations

from conftest import Desk, urgent

GPU_DESK = """\
[desk]
name = "test"
timezone = "America/New_York"
inbox_sources = ["alert"]

[[roles]]
name = "alpha"
capabilities = ["triage"]
host = "gpu"

[[roles]]
name = "beta"
capabilities = ["triage"]
"""

NOT_TICKING = [{"role": "alpha", "why": "host gpu is not ticking"}]


def _record_launches(desk: Desk) -> None:
    from deskd.service.engine.dispatch import Dispatched

    desk.monkeypatch.setattr(
        "deskd.service.engine.tick.start_executor",
        lambda ctx, attempt_id, role: Dispatched(attempt_id=attempt_id, role=role, pid=0),
    )


def _seen(desk: Desk, title: str, **env: str) -> tuple[object, object, object]:
    """Whom routing passes over, whether the board calls gpu stale, and alpha's
    launch status after a tick on another host."""
    routed = desk.json(
        "inbox", "enqueue", "--source", "alert", "--title", title, "--capability", "triage",
        **env,
    )["passed_over"]  # fmt: skip
    (gpu,) = [h for h in desk.json("status", **env)["hosts"] if h["name"] == "gpu"]
    desk.json("tick", "--execute", DESKD_HOST_NAME="host-a", **env)
    (launch,) = (
        desk.db()
        .execute(
            "SELECT launch_status FROM attempts WHERE role = 'alpha' AND launch_host = 'gpu' "
            "ORDER BY id LIMIT 1"
        )
        .fetchone()
    )
    return routed, gpu["stale"], launch


def test_a_longer_overdue_setting_keeps_a_quiet_host_ticking_for_every_user(desk: Desk) -> None:
    desk.write_desk(GPU_DESK)
    _record_launches(desk)
    desk.json("tick", "--execute", DESKD_HOST_NAME="gpu")  # gpu's last tick
    urgent(desk, "alpha")
    desk.json("tick", "--execute", DESKD_HOST_NAME="host-a")  # alpha's launch handed to gpu
    desk.advance(minutes=5)
    assert _seen(desk, "first", DESKD_TICK_OVERDUE="10m") == ([], False, "planned")
    # The default (3m) at the same instant: routing and the board both say gpu stopped.
    routed = desk.json(
        "inbox", "enqueue", "--source", "alert", "--title", "second", "--capability", "triage"
    )
    assert routed["passed_over"] == NOT_TICKING
    (gpu,) = [h for h in desk.json("status")["hosts"] if h["name"] == "gpu"]
    assert gpu["stale"] is True
    desk.advance(minutes=6)  # 11 minutes since gpu's last tick
    assert _seen(desk, "third", DESKD_TICK_OVERDUE="10m") == (NOT_TICKING, True, "skipped")
