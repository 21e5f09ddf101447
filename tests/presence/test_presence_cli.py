"""`deskd status set|end`, `deskd heartbeat` and `deskd roles` through the CLI, clock pinned."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import DESK_TOML, Desk

S1 = "3f1c9a7e-5b2d-4c8e-9a61-0d2e7b4f8c13"
S2 = "9b0d2c44-1e7f-4a58-8c3b-6f5a2e1d9c70"
N9 = "9d8a77e3-d450-4e5f-91a7-3e5a19e0ca13"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Presence is read and written in the database: every ``desk`` test runs on both
    backends (as the conftest's ``BOTH_BACKENDS`` folders do)."""
    if "backend" in metafunc.fixturenames and not metafunc.definition.get_closest_marker(
        "sqlite_only"
    ):
        metafunc.parametrize("backend", ["sqlite", "postgresql"], indirect=True)


def presence(desk: Desk, role: str = "alpha") -> dict[str, Any]:
    rows = {r["role"]: r for r in desk.json("roles")}
    return dict(rows[role])


def sessions(desk: Desk, role: str = "alpha") -> list[dict[str, Any]]:
    conn = desk.db()
    try:
        rows = conn.execute("SELECT * FROM sessions WHERE role = ? ORDER BY id", (role,))
        return [dict(r) for r in rows]
    finally:
        conn.close()


# -- presence over time ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [(0, "online"), (119, "online"), (120, "suspect"), (599, "suspect"), (600, "dead")],
)
def test_it_ages_a_working_session_by_its_heartbeat(
    desk: Desk, seconds: int, expected: str
) -> None:
    desk.ok("status", "set", "--role", "alpha")
    desk.advance(seconds=seconds)
    assert presence(desk)["presence"] == expected
    assert presence(desk)["heartbeat_age_s"] == seconds


def test_it_keeps_a_resting_session_idle_however_old(desk: Desk) -> None:
    out = desk.json("status", "set", "--role", "alpha", "--state", "resting")
    assert out == {"role": "alpha", "presence": "idle", "session_id": None}
    for days in (0, 1, 30):
        desk.advance(days=days)
        assert presence(desk)["presence"] == "idle"


def test_it_reports_never_for_a_role_without_a_session(desk: Desk) -> None:
    desk.ok("status", "set", "--role", "alpha")
    row = presence(desk, "beta")
    assert row["presence"] == "never"
    assert row["last_heartbeat"] is None
    assert row["heartbeat_age_s"] is None


def test_it_uses_the_desks_presence_thresholds(desk: Desk) -> None:
    desk.write_desk(DESK_TOML + '\n[presence]\nonline = "30s"\nsuspect = "1m"\n')
    desk.ok("status", "set", "--role", "alpha")
    desk.advance(seconds=29)
    assert presence(desk)["presence"] == "online"
    desk.advance(seconds=1)
    assert presence(desk)["presence"] == "suspect"
    desk.advance(seconds=30)
    assert presence(desk)["presence"] == "dead"


def test_it_brings_a_dead_role_back_online_with_a_heartbeat(desk: Desk) -> None:
    desk.ok("heartbeat", "--role", "alpha")
    desk.advance(minutes=15)
    assert presence(desk)["presence"] == "dead"
    assert desk.json("heartbeat", "--role", "alpha")["presence"] == "online"
    assert len(sessions(desk)) == 1


# -- status set ----------------------------------------------------------------------------


def test_it_records_activity_and_the_native_session_id(desk: Desk) -> None:
    out = desk.json(
        "status", "set", "--role", "alpha", "--activity", "triaging #42", "--session-id", S1
    )
    assert out == {"role": "alpha", "presence": "online", "session_id": S1}
    row = presence(desk)
    assert (row["session_id"], row["activity"], row["state"]) == (S1, "triaging #42", "working")
    assert row["last_heartbeat"] == "2026-12-01T14:00:00Z"


def test_it_refuses_an_invalid_state_naming_the_choices(desk: Desk) -> None:
    desk.ok("status", "set", "--role", "alpha")
    before = desk.dump()
    out = desk.run("status", "set", "--role", "alpha", "--state", "sleeping")
    assert out.exit_code == 1
    assert out.stderr.startswith("deskd: ")
    assert "working, resting" in out.stderr
    err = desk.run("status", "set", "--role", "alpha", "--state", "sleeping", "--json").error()
    assert err["code"] == "invalid_value"
    assert desk.dump() == before


def test_it_refuses_an_unknown_role_listing_the_roles(desk: Desk) -> None:
    out = desk.run("status", "set", "--role", "alfa", "--json")
    assert out.exit_code == 1
    assert out.error()["code"] == "unknown_role"
    assert "alpha, beta, gamma" in out.error()["message"]


def test_it_needs_a_role_from_the_operator(desk: Desk) -> None:
    out = desk.run("status", "set", "--json")
    assert out.exit_code == 1
    assert out.error()["code"] == "missing_role"


def test_it_defaults_the_role_and_session_to_the_agents_own(desk: Desk) -> None:
    out = desk.json("status", "set", "--activity", "deploying", role="beta", DESKD_SESSION_ID=N9)
    assert out == {"role": "beta", "presence": "online", "session_id": N9}
    assert presence(desk, "beta")["activity"] == "deploying"


# -- who is calling ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("status", "set", "--role", "beta"),
        ("status", "set", "--role", "beta", "--state", "resting"),
        ("status", "end", "--role", "beta"),
        ("heartbeat", "--role", "beta"),
    ],
)
def test_it_refuses_an_agent_setting_another_roles_presence(
    desk: Desk, args: tuple[str, ...]
) -> None:
    desk.ok("status", "set", "--role", "beta")
    before = desk.dump()
    out = desk.run(*args, "--json", role="alpha")
    assert out.exit_code == 1
    assert out.error()["code"] == "not_your_role"
    assert desk.dump() == before


def test_it_lets_an_agent_name_its_own_role(desk: Desk) -> None:
    assert desk.json("status", "set", "--role", "alpha", role="alpha")["presence"] == "online"


# -- status end ----------------------------------------------------------------------------


def test_it_ends_the_live_session(desk: Desk) -> None:
    desk.ok("status", "set", "--role", "alpha", "--session-id", S1)
    desk.advance(seconds=30)
    out = desk.json("status", "end", "--role", "alpha")
    assert out == {"role": "alpha", "presence": "offline", "session_id": S1}
    [row] = sessions(desk)
    assert (row["state"], row["end_reason"]) == ("ended", "ended by status end")
    assert row["ended_at"] == desk.now_ms
    desk.advance(days=2)
    assert presence(desk)["presence"] == "offline"


def test_it_ends_a_resting_session_too(desk: Desk) -> None:
    desk.ok("status", "set", "--role", "alpha", "--state", "resting")
    assert desk.json("status", "end", "--role", "alpha")["presence"] == "offline"


@pytest.mark.parametrize("history", ["never", "ended"])
def test_it_refuses_to_end_when_no_session_is_live(desk: Desk, history: str) -> None:
    if history == "ended":
        desk.ok("status", "set", "--role", "alpha")
        desk.ok("status", "end", "--role", "alpha")
    else:
        desk.ok("status", "set", "--role", "beta")  # the database exists; alpha has no session
    before = desk.dump()
    out = desk.run("status", "end", "--role", "alpha")
    assert out.exit_code == 1
    assert "no live session" in out.stderr
    assert history in out.stderr or "offline" in out.stderr
    assert desk.run("status", "end", "--role", "alpha", "--json").error()["code"] == (
        "no_live_session"
    )
    assert desk.dump() == before


def test_it_starts_a_new_session_after_an_end(desk: Desk) -> None:
    desk.ok("status", "set", "--role", "alpha")
    desk.ok("status", "end", "--role", "alpha")
    assert desk.json("heartbeat", "--role", "alpha")["presence"] == "online"
    assert [s["state"] for s in sessions(desk)] == ["ended", "working"]


# -- heartbeat -----------------------------------------------------------------------------


def test_it_stamps_one_row_per_session_not_per_heartbeat(desk: Desk) -> None:
    for _ in range(3):
        out = desk.json("heartbeat", "--role", "alpha", "--session-id", S1, "--token", "w-7")
        desk.advance(seconds=10)
    assert out == {"role": "alpha", "presence": "online", "session_id": S1}
    [row] = sessions(desk)
    assert (row["heartbeats"], row["wake_token"], row["state"]) == (3, "w-7", "working")


def test_it_turns_a_resting_session_back_to_working(desk: Desk) -> None:
    desk.ok("status", "set", "--role", "alpha", "--state", "resting", "--session-id", S1)
    assert desk.json("heartbeat", "--role", "alpha", "--session-id", S1)["presence"] == "online"


def test_it_follows_a_resumed_older_session(desk: Desk) -> None:
    # s-2 took over, then the older s-1 was resumed: the role is online on s-1, not offline.
    desk.ok("heartbeat", "--role", "alpha", "--session-id", S1)
    desk.ok("heartbeat", "--role", "alpha", "--session-id", S2)
    out = desk.json("heartbeat", "--role", "alpha", "--session-id", S1)
    assert out == {"role": "alpha", "presence": "online", "session_id": S1}
    assert presence(desk)["session_id"] == S1
    assert [(s["native_id"], s["state"]) for s in sessions(desk)] == [
        (S1, "working"),
        (S2, "superseded"),
    ]
    assert desk.json("status", "end", "--role", "alpha")["session_id"] == S1
    assert presence(desk)["presence"] == "offline"


def test_it_reads_the_wake_token_from_the_environment(desk: Desk) -> None:
    desk.ok("heartbeat", role="alpha", DESKD_WAKE_TOKEN="w-1", DESKD_SESSION_ID=S1)
    [row] = sessions(desk)
    assert (row["native_id"], row["wake_token"]) == (S1, "w-1")


# -- roles -----------------------------------------------------------------------------------


def test_it_lists_every_desk_role_with_the_contracts_keys(desk: Desk) -> None:
    desk.ok("inbox", "enqueue", "--for", "gamma", "--source", "alert", "--title", "disk")
    desk.ok("status", "set", "--role", "alpha", "--session-id", S1, "--activity", "x")
    rows = desk.json("roles")
    assert [r["role"] for r in rows] == ["alpha", "beta", "gamma"]
    for row in rows:
        assert {"role", "presence", "session_id", "activity", "last_heartbeat"} <= set(row)
        assert {"title", "enabled", "unread", "heartbeat_age_s"} <= set(row)
    assert [r["presence"] for r in rows] == ["online", "never", "never"]
    assert [r["unread"] for r in rows] == [0, 0, 1]
    assert rows[0]["title"] == "Alpha"


def test_it_shows_disabled_and_removed_roles_as_disabled(desk: Desk) -> None:
    desk.ok("status", "set", "--role", "gamma")
    desk.write_desk(
        DESK_TOML.replace('name = "gamma"\ntitle = "Gamma"', 'name = "delta"\nenabled = false')
    )
    rows = {r["role"]: r for r in desk.json("roles")}
    assert set(rows) == {"alpha", "beta", "delta", "gamma"}
    assert (rows["delta"]["enabled"], rows["delta"]["presence"]) == (False, "never")
    assert (rows["gamma"]["enabled"], rows["gamma"]["presence"]) == (False, "online")
    assert rows["alpha"]["enabled"] is True
    text = desk.ok("roles").stdout
    assert "never (disabled)" in text
    assert "online (disabled)" in text


def test_it_prints_a_readable_table_with_ages(desk: Desk) -> None:
    desk.ok("status", "set", "--role", "alpha", "--activity", "triaging #42")
    desk.advance(seconds=42)
    text = desk.ok("roles").stdout
    header, alpha, beta, _gamma = text.splitlines()
    assert header.split() == [
        "role",
        "title",
        "presence",
        "session",
        "activity",
        "heartbeat",
        "unread",
    ]
    assert "online" in alpha
    assert "triaging #42" in alpha
    assert "42s ago" in alpha
    assert "never" in beta
    assert "\x1b[" not in text


@pytest.mark.parametrize(
    "args",
    [
        ("status", "set", "--role", "alpha"),
        ("status", "end", "--role", "alpha"),
        ("heartbeat", "--role", "alpha"),
    ],
)
def test_it_prints_a_sentence_by_default_and_one_json_document(
    desk: Desk, args: tuple[str, ...]
) -> None:
    if args[1] == "end":
        desk.ok("status", "set", "--role", "alpha")
    assert desk.ok(*args).stdout.startswith(("alpha: ", "ended alpha: ", "heartbeat: alpha: "))
    if args[1] == "end":
        desk.ok("status", "set", "--role", "alpha")
    doc = desk.ok(*args, "--json").json()
    assert {"role", "presence", "session_id"} <= set(doc)


@pytest.mark.parametrize(
    "args", [("status",), ("status", "set"), ("status", "end"), ("heartbeat",), ("roles",)]
)
def test_it_documents_every_command_with_examples(desk: Desk, args: tuple[str, ...]) -> None:
    out = desk.ok(*args, "--help").stdout
    assert "Examples:" in out
    assert "deskd " + " ".join(args) in out
