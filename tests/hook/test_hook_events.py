"""The session hook's heartbeat and its SessionStart, Stop and StopFailure events."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hook_helpers import SESSION, HookDesk, both_backends, fixture

from conftest import Desk

pytest_generate_tests = both_backends  # the heartbeat, surfacing and briefing on PostgreSQL too


@pytest.fixture
def hd(desk: Desk) -> HookDesk:
    return HookDesk(desk)


def ids_in(text: str) -> list[int]:
    return [int(m) for m in re.findall(r"^#(\d+) \[", text, flags=re.MULTILINE)]


def presence(hd: HookDesk, role: str) -> str:
    rows = hd.desk.json("roles")
    return str(next(r for r in rows if r["role"] == role)["presence"])


def test_heartbeats_update_one_session_row(hd: HookDesk) -> None:
    hd.enqueue("alpha", "seed the roles")
    for n in range(5):
        hd.desk.advance(seconds=10)
        name = "post_tool_use_failure" if n == 2 else "post_tool_use"
        assert hd.hook(fixture(name), DESKD_WAKE_TOKEN="tok-1").code == 0

    (row,) = hd.sessions()
    assert row["native_id"] == SESSION
    assert row["heartbeats"] == 5
    assert row["state"] == "working"
    assert row["last_heartbeat_at"] == hd.desk.now_ms
    assert (row["last_event"], row["last_tool"]) == ("PostToolUse", "Bash")
    assert row["wake_token"] == "tok-1"
    assert presence(hd, "alpha") == "online"


def test_a_heartbeat_of_the_live_session_is_four_statements(hd: HookDesk) -> None:
    """Begin, the stamp (the role checked in it), the role's unseen items, commit: one
    round trip each on PostgreSQL (it was seven: the role check, and the role's current
    and native sessions read before the stamp)."""
    from deskd import hook
    from deskd.store.db import connect

    hd.enqueue("alpha", "seed the roles")
    hd.hook(fixture("post_tool_use"))  # the session opened, the item shown
    conn, sent = connect(hd.desk.db_target), []

    class Counted:
        def __getattr__(self, name: str) -> Any:
            return getattr(conn, name)

        def execute(self, sql: Any, params: Any = ()) -> Any:
            sent.append(sql)
            return conn.execute(sql, params)

        def begin(self, **how: Any) -> None:
            sent.append("BEGIN")
            conn.begin(**how)

    call = {"event": "PostToolUse", "role": "alpha", "native": SESSION, "now": hd.desk.now_ms}
    hook.surface(Counted(), fixture("post_tool_use"), env=hd.env(), out=print, note=print, **call)
    conn.close()
    assert len(sent) == 4, sent
    assert sent[0] == "BEGIN" and sent[-1] == "COMMIT"
    assert [r["heartbeats"] for r in hd.sessions()] == [2]


def test_a_role_disabled_while_its_session_is_live_writes_nothing(hd: HookDesk) -> None:
    """The one-statement heartbeat stamps a live session only while its role is enabled."""
    hd.enqueue("gamma", "seed the roles")
    hd.hook(fixture("post_tool_use"), role="gamma")  # gamma's session, live
    text = (hd.desk.home / "deskd.toml").read_text(encoding="utf-8")
    hd.desk.write_desk(text.replace('[[roles]]\nname = "gamma"\ntitle = "Gamma"\n', ""))
    hd.enqueue("alpha", "a write syncs the roles")
    before = hd.desk.dump()
    assert hd.hook(fixture("post_tool_use"), role="gamma").code == 0
    assert hd.desk.dump() == before
    assert "role 'gamma' is disabled" in hd.log_text()


def test_a_new_native_session_opens_a_new_row(hd: HookDesk) -> None:
    hd.enqueue("alpha", "seed the roles")
    hd.hook(fixture("post_tool_use"))
    hd.hook(fixture("post_tool_use", session_id="next-session"))

    old, new = hd.sessions()
    assert (old["native_id"], old["state"]) == (SESSION, "superseded")
    assert (new["native_id"], new["state"]) == ("next-session", "working")


def test_session_start_binds_the_session_and_briefs_the_role(hd: HookDesk) -> None:
    item = hd.enqueue("alpha", "disk 91%")
    hd.enqueue("alpha", "disk 95%")

    run = hd.hook(fixture("session_start"))

    assert (run.code, run.event()) == (0, "SessionStart")
    text = run.context()
    assert "'alpha'" in text
    assert "2 unread items" in text
    for command in (
        "deskd inbox list --for alpha",
        "deskd inbox ack --for alpha --seen",
        "deskd send --from alpha --to ROLE",
        "deskd status set --role alpha --state resting",
    ):
        assert command in text
    assert ids_in(text) == []  # a briefing, not the queue: the next tool call surfaces it
    assert hd.item(item)["seen_at"] is None
    (row,) = hd.sessions()
    assert (row["native_id"], row["state"], row["last_event"]) == (
        SESSION,
        "working",
        "SessionStart",
    )


def test_session_start_binds_a_session_opened_without_a_native_id(hd: HookDesk) -> None:
    hd.desk.ok("status", "set", "--role", "alpha", "--state", "working")
    (before,) = hd.sessions()
    assert before["native_id"] is None

    hd.hook(fixture("session_start"))

    (after,) = hd.sessions()
    assert (after["id"], after["native_id"]) == (before["id"], SESSION)


@pytest.mark.parametrize("source", ["compact", "clear"])
def test_after_a_compaction_the_items_are_surfaced_again(hd: HookDesk, source: str) -> None:
    urgent = hd.enqueue("alpha", "5xx above 2%", priority="urgent")
    normal = hd.enqueue("alpha", "disk 91%")
    assert ids_in(hd.hook(fixture("post_tool_use")).context()) == [urgent, normal]
    assert hd.hook(fixture("post_tool_use")).stdout == ""

    hd.desk.advance(minutes=5)
    run = hd.hook(fixture("session_start", source=source))

    text = run.context()
    assert run.event() == "SessionStart"
    assert "2 unread items" in text  # the briefing first
    assert ids_in(text) == [urgent, normal]
    assert hd.item(urgent)["shown_session"] == SESSION
    assert hd.hook(fixture("post_tool_use")).stdout == ""  # shown again, once


def test_a_compaction_does_not_resurface_acked_items(hd: HookDesk) -> None:
    acked = hd.enqueue("alpha", "handled")
    hd.hook(fixture("post_tool_use"))
    hd.desk.json("inbox", "ack", "--seen", role="alpha")
    left = hd.enqueue("alpha", "still open")

    text = hd.hook(fixture("session_start", source="compact")).context()

    assert ids_in(text) == [left]
    assert acked not in ids_in(text)


def test_stop_marks_the_session_resting_and_prints_nothing(hd: HookDesk) -> None:
    hd.enqueue("alpha", "disk 91%")
    hd.hook(fixture("post_tool_use"))
    hd.desk.advance(seconds=30)

    run = hd.hook(fixture("stop"))

    assert (run.code, run.stdout) == (0, "")
    (row,) = hd.sessions()
    assert (row["state"], row["last_event"], row["heartbeats"]) == ("resting", "Stop", 2)
    assert presence(hd, "alpha") == "idle"
    hd.desk.advance(hours=3)
    assert presence(hd, "alpha") == "idle"  # resting is not dying


def test_stop_surfaces_nothing_even_with_unshown_items(hd: HookDesk) -> None:
    item = hd.enqueue("alpha", "disk 91%")
    assert hd.hook(fixture("stop")).stdout == ""
    assert hd.item(item)["seen_at"] is None


def test_stop_failure_records_the_failure_on_the_session_row(hd: HookDesk) -> None:
    hd.enqueue("alpha", "seed the roles")
    hd.hook(fixture("post_tool_use"))
    hd.desk.advance(seconds=5)

    run = hd.hook(fixture("stop_failure_rate_limit"))

    assert (run.code, run.stdout) == (0, "")
    (row,) = hd.sessions()
    assert row["failure"] == "rate_limit"
    assert row["failure_detail"] == "429 rate_limit_error"
    assert row["failure_at"] == hd.desk.now_ms
    assert (row["state"], row["last_event"]) == ("resting", "StopFailure")


def test_a_working_call_after_a_stop_makes_the_session_working_again(hd: HookDesk) -> None:
    hd.enqueue("alpha", "seed the roles")
    hd.hook(fixture("stop"))
    hd.hook(fixture("user_prompt_submit"))
    (row,) = hd.sessions()
    assert row["state"] == "working"
    assert presence(hd, "alpha") == "online"
