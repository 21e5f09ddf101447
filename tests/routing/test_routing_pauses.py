"""Capability routing passes over a role that cannot work now — paused, its desk paused, or
bound to a host that is not ticking — and says why; such a role is chosen only when no
capable role can work."""

from __future__ import annotations

from test_capability_routing import enqueue, routed_desk

from conftest import Desk


def test_a_paused_role_is_passed_over_for_an_idle_capable_one(desk: Desk) -> None:
    routed_desk(desk)
    desk.ok("pause", "--role", "alpha", "--reason", "rate limited")
    out = enqueue(desk, "--capability", "triage")
    assert out["role"] == "beta"
    assert out["passed_over"] == [{"role": "alpha", "why": "paused: rate limited"}]
    assert "alpha never, 0 open, paused: rate limited" in str(out["routed"])


def test_when_every_capable_role_is_paused_the_work_still_goes_to_one(desk: Desk) -> None:
    routed_desk(desk)
    desk.ok("pause", "--reason", "deploy freeze")
    out = enqueue(desk, "--capability", "triage")
    assert out["role"] == "alpha"  # held for resume, not lost
    assert out["passed_over"] == [{"role": "beta", "why": "desk paused: deploy freeze"}]
    assert str(out["routed"]).startswith("triage: alpha never, 0 open, desk paused: deploy freeze")


def test_a_role_bound_to_a_host_that_is_not_ticking_is_passed_over(desk: Desk) -> None:
    desk.write_desk(
        """\
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
    )
    out = enqueue(desk, "--capability", "triage")
    assert out["role"] == "beta"
    assert out["passed_over"] == [{"role": "alpha", "why": "host gpu is not ticking"}]
    desk.ok("tick", "--execute", DESKD_HOST_NAME="gpu")  # gpu ticks: alpha can work again
    out = enqueue(desk, "--capability", "triage", title="another")
    assert (out["role"], out["passed_over"]) == ("alpha", [])
