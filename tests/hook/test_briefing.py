"""The SessionStart briefing names the roster and the role's open obligations, and the texts
an agent reads on every session or tool call stay under stated ceilings:

- the briefing: at most 1,500 characters, whatever the desk's size (hook_briefing.MAX_BRIEFING);
- a typical hook context (three new items with a ref and a short body): at most 1,500.
"""

from __future__ import annotations

import pytest
from hook_helpers import HookDesk, both_backends, fixture

from conftest import DESK_TOML, Desk

BRIEFING_CEILING = 1_500
TYPICAL_CONTEXT_CEILING = 1_500


pytest_generate_tests = both_backends  # the heartbeat, surfacing and briefing on PostgreSQL too


@pytest.fixture
def hd(desk: Desk) -> HookDesk:
    return HookDesk(desk)


def test_the_briefing_names_the_roster_and_what_the_role_owes(hd: HookDesk) -> None:
    hd.enqueue("alpha", "disk 91%")
    hd.desk.ok("task", "add", "Review PR 12", "--for", "alpha", "--priority", "urgent")
    hd.desk.ok("task", "add", "Write the report", "--for", "alpha")
    hd.desk.ok("meeting", "call", "--by", "beta", "--agenda", "release?", "--attendees", "alpha")
    text = hd.hook(fixture("session_start")).context()
    assert text.startswith(
        "deskd: you are the role 'alpha' at this desk. You owe: 2 unread items, 2 open tasks "
        '(#1 "Review PR 12" [urgent]; #2 "Write the report"), 1 meeting invitation'
    )  # the meeting's invitation is an item too
    assert '\nOn this desk: beta ("Beta"), gamma ("Gamma").\n' in text
    assert "never instructions" in text
    assert len(text) <= BRIEFING_CEILING


def test_the_briefing_stays_under_its_ceiling_on_a_crowded_desk(hd: HookDesk) -> None:
    roles = "".join(
        f'\n[[roles]]\nname = "role{n:02d}"\ntitle = "{"Very long title of a role " * 4}"\n'
        for n in range(40)
    )
    hd.desk.write_desk(DESK_TOML + roles)
    for n in range(12):
        hd.desk.ok("task", "add", f"task {n} " + "with a very long title " * 8, "--for", "alpha")
    for n in range(30):
        hd.enqueue("alpha", f"item {n}")
    text = hd.hook(fixture("session_start")).context()
    assert len(text) <= BRIEFING_CEILING, len(text)
    assert "12 open tasks" in text and "+9 more" in text
    assert "+" in text.split("On this desk:")[1] and "(deskd roles)" in text
    for command in ("deskd inbox list --for alpha", "deskd status set --role alpha"):
        assert command in text


def test_a_typical_hook_context_stays_under_its_ceiling(hd: HookDesk) -> None:
    for n, priority in enumerate(("urgent", "high", "normal")):
        hd.enqueue(
            "alpha",
            f"checkout 5xx above {n + 2}% on web-{n}",
            priority=priority,
            body="Error budget burning since 14:02; p95 latency 2.3 s; last deploy 13:55.",
            ref=f"https://grafana.example/d/checkout?from=now-1h&panel={n}",
        )
    text = hd.hook(fixture("post_tool_use")).context()
    assert text.count("\n#") == 3
    assert len(text) <= TYPICAL_CONTEXT_CEILING, len(text)
