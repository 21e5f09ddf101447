"""Hypothesis: whatever state a desk is in, a dry-run tick writes nothing at all."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DESK_TOML, Desk

SESSIONS = {  # one native session per role, shaped as Claude Code prints them
    "alpha": "3f1c9a7e-5b2d-4c8e-9a61-0d2e7b4f8c13",
    "beta": "9b0d2c44-1e7f-4a58-8c3b-6f5a2e1d9c70",
    "gamma": "9d8a77e3-d450-4e5f-91a7-3e5a19e0ca13",
}

ROLES = ("alpha", "beta", "gamma")

step = st.one_of(
    st.tuples(
        st.just("enqueue"), st.sampled_from(ROLES), st.sampled_from(("low", "normal", "urgent"))
    ),
    st.tuples(st.just("status"), st.sampled_from(ROLES), st.sampled_from(("working", "resting"))),
    st.tuples(st.just("hook"), st.sampled_from(ROLES), st.sampled_from(("5m", "1h"))),
    st.tuples(st.just("tick"), st.just(""), st.just("")),
    st.tuples(st.just("ack"), st.sampled_from(ROLES), st.just("")),
    st.tuples(st.just("advance"), st.just(""), st.sampled_from(("1", "4", "30"))),
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(step, min_size=1, max_size=12))
def test_a_dry_run_tick_writes_nothing_whatever_the_state(monkeypatch, steps) -> None:  # type: ignore[no-untyped-def]
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        monkeypatch.setenv("DESKD_HOME", str(home))
        desk = Desk(home, monkeypatch)
        desk.write_desk(DESK_TOML)
        for kind, role, arg in steps:
            if kind == "enqueue":
                desk.ok(
                    "inbox",
                    "enqueue",
                    "--for",
                    role,
                    "--source",
                    "alert",
                    "--title",
                    "t",
                    "--priority",
                    arg,
                )
            elif kind == "status":
                desk.ok(
                    "status", "set", "--role", role, "--state", arg, "--session-id", SESSIONS[role]
                )
            elif kind == "hook":
                desk.ok("hook", "add", "--for", role, "--title", "h", "--every", arg)
            elif kind == "tick":
                desk.ok("tick", "--execute")
            elif kind == "ack":
                desk.ok("inbox", "ack", "--for", role, "--seen", role=role)
            else:
                desk.advance(minutes=int(arg))
        desk.ok("roles")  # the database exists even if no step wrote
        before = desk.dump()
        desk.ok("tick")
        assert desk.dump() == before
