"""Supervisor actions: each a POST through the services, each an event by ``supervisor``; a
refusal changes nothing; and nothing the supervisor is owed ever launches an agent."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import CODE, full_desk, log_in, make_app, record_launches

from conftest import Desk


class Supervisor:
    """A logged-in console client that posts actions with the page's CSRF token."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        log_in(client)
        from web_helpers import csrf_of

        self.csrf = csrf_of(client.get("/").text)

    def act(self, action: str, /, **form: str) -> Any:
        return self.client.post(
            f"/actions/{action}",
            data={"csrf": self.csrf, **form},
            headers={"accept": "application/json"},
        )

    def ok(self, action: str, /, **form: str) -> dict[str, Any]:
        response = self.act(action, **form)
        assert response.status_code == 200, f"{action}: {response.status_code} {response.text}"
        result: dict[str, Any] = response.json()["result"]
        return result


@pytest.fixture
def supervisor(desk: Desk, tmp_path_factory: pytest.TempPathFactory) -> Any:
    full_desk(desk, tmp_path_factory)
    with TestClient(make_app(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE)) as client:
        yield Supervisor(client)


def events_by_supervisor(desk: Desk) -> list[tuple[str, str | None]]:
    with desk.db() as conn:
        rows = conn.execute(
            "SELECT kind, subject FROM events WHERE actor = 'supervisor' ORDER BY id"
        ).fetchall()
    return [(r[0], r[1]) for r in rows]


def test_every_action_goes_through_the_services_as_the_supervisor(
    desk: Desk, supervisor: Supervisor
) -> None:
    sent = supervisor.ok("send", to="alpha,beta", title="check the backups", priority="high")
    assert [i["to"] for i in sent["items"]] == ["alpha", "beta"]
    inbox = desk.json("inbox", "list", "--for", "alpha")
    assert any(i["source"] == "supervisor" and i["title"] == "check the backups" for i in inbox)

    live = desk.json("wake", "list", "--role", "delta", "--open")[0]
    supervisor.ok("wake-ack", attempt=str(live["id"]), note="the supervisor has it")
    assert next(w for w in desk.json("wake", "list", "--open") if w["id"] == live["id"])["acked"]

    supervisor.ok("pause", role="gamma", reason="noisy")
    supervisor.ok("pause", reason="maintenance window")
    assert {p["role"] for p in desk.json("status")["paused"]} == {"gamma", None}
    supervisor.ok("resume", role="gamma")
    supervisor.ok("resume")
    assert desk.json("status")["paused"] == []

    silence = supervisor.ok("silence", role="alpha", duration="30m", reason="deploying")
    supervisor.ok("silence-end", id=str(silence["id"]))

    hook = desk.json("hook", "list", "--for", "beta")[0]
    supervisor.ok("hook-cancel", id=str(hook["id"]))
    assert desk.json("hook", "list", "--for", "beta") == []

    tasks = {t["title"]: t["id"] for t in desk.json("task", "list")}
    moved = supervisor.ok("task-reassign", id=str(tasks["rotate the keys"]), role="gamma")
    assert moved["role"] == "gamma"
    supervisor.ok("task-cancel", id=str(tasks["write the runbook"]), note="not needed")
    assert [t["title"] for t in desk.json("task", "list")] == ["rotate the keys"]

    meetings = {m["agenda"]: m["meeting_id"] for m in desk.json("meeting", "list", "--all")}
    talk = str(meetings["an active talk"])
    budget = desk.json("meeting", "status", talk)["budget_left"]
    supervisor.ok("meeting-post", meeting=talk, body="please wrap up by noon")
    after = desk.json("meeting", "status", talk)
    assert after["budget_left"] == budget  # the supervisor's words spend none of the budget
    assert all(o["debtor"] != "supervisor" and o["creditor"] != "supervisor" for o in after["owed"])
    updates = desk.json("meeting", "updates", talk, "--role", "beta")
    assert any(m["from"] == "supervisor" for m in updates["messages"])
    supervisor.ok("meeting-close", meeting=str(meetings["reach consensus"]), resolution="enough")
    closed = desk.json("meeting", "status", str(meetings["reach consensus"]))
    assert closed["state"] == "closed" and "supervisor" in closed["resolution"]

    kinds = [k for k, _ in events_by_supervisor(desk)]
    assert kinds == [
        "supervisor.sent", "attempt.acked", "paused", "paused", "resumed", "resumed",
        "silence.added", "silence.ended", "hook.cancelled", "task.updated", "task.updated",
        "meeting.supervisor_said", "meeting.force_closed",
    ]  # fmt: skip


def test_a_browser_form_is_sent_back_to_its_page_with_what_happened(
    desk: Desk, supervisor: Supervisor
) -> None:
    response = supervisor.client.post(
        "/actions/send",
        data={"csrf": supervisor.csrf, "to": "eta", "title": "hello", "back": "/roles/eta"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"].startswith("/roles/eta?done=sent%20item%20")
    page = supervisor.client.get(response.headers["location"]).text
    assert 'class="flash"' in page and "sent item" in page


@pytest.mark.parametrize(
    ("action", "form", "status", "says"),
    [
        ("wake-ack", {"attempt": "99999", "note": "x"}, 404, "no attempt 99999"),
        ("wake-ack", {"attempt": "x1", "note": "x"}, 400, "a whole number"),
        ("send", {"to": "nobody", "title": "x"}, 404, "unknown role 'nobody'"),
        ("send", {"to": "alpha", "title": "x", "priority": "asap"}, 400, "urgent"),
        ("silence", {"role": "alpha", "duration": "90d", "reason": "x"}, 400, "at most 30d"),
        ("pause", {"role": "alpha", "reason": " "}, 400, "say why"),
        ("task-reassign", {"id": "424242", "role": "beta"}, 404, "424242"),
        ("meeting-close", {"meeting": "6", "resolution": "x"}, 400, "is closed"),
        ("meeting-post", {"meeting": "6", "body": "hello"}, 400, "is closed"),
        ("meeting-post", {"meeting": "77", "body": "hello"}, 404, "77"),
        ("channel-test", {"name": "pager"}, 404, "channels: bad, ok"),
    ],
)
def test_a_refused_action_says_why_and_changes_nothing(
    desk: Desk, supervisor: Supervisor, action: str, form: dict[str, str], status: int, says: str
) -> None:
    before = desk.dump()
    response = supervisor.act(action, **form)
    assert response.status_code == status, response.text
    assert says in response.json()["error"]["message"]
    assert desk.dump() == before


def test_demand_owed_by_the_supervisor_never_launches_an_agent(
    desk: Desk, supervisor: Supervisor
) -> None:
    launched = record_launches(desk.monkeypatch)
    # The full desk's channels point at ports where nothing listens now: one try each.
    desk.monkeypatch.setattr("deskd.adapters.channels.apprise.RETRY_ATTEMPTS", 1)
    meetings = {m["agenda"]: m["meeting_id"] for m in desk.json("meeting", "list")}
    supervisor.ok("meeting-post", meeting=str(meetings["an active talk"]), body="status?")
    help_item = desk.json("page", "--from", "eta", "--title", "which branch is live?")
    for _ in range(7):  # notify, badge, and past the badge's first recycle (30 min)
        out = desk.json("tick", "--execute")
        desk.advance(minutes=6)
        for action in out["actions"]:
            assert action["role"] != "supervisor"
    with desk.db() as conn:
        rows = conn.execute(
            "SELECT id, rung, launch_status FROM attempts WHERE kind = 'help'"
        ).fetchall()
        debts = conn.execute(
            "SELECT COUNT(*) FROM meeting_obligations WHERE debtor = 'supervisor'"
        ).fetchone()[0]
        supervisor_attempts = conn.execute(
            "SELECT COUNT(*) FROM attempts WHERE role = 'supervisor'"
        ).fetchone()[0]
    assert int(help_item["attempt_id"]) in {int(r["id"]) for r in rows}
    assert {r["rung"] for r in rows} <= {"notify", "badge"}
    assert all(r["launch_status"] is None for r in rows)
    help_ids = {int(r["id"]) for r in rows}
    assert not help_ids & set(launched)
    assert debts == 0 and supervisor_attempts == 0
