"""Events in over HTTP (``POST /events/<source>``), through the console's app: each declared
source makes items for its role or capability, a replay adds nothing, and every refusal
(unknown source, bad or missing signature or token, a body over the limit, a payload that
cannot build a title) writes nothing."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from events_helpers import (
    AM_TOKEN,
    EVENTS_DESK,
    GH_SECRET,
    JSON_TOKEN,
    alertmanager,
    bearer,
    body_of,
    check_run,
    github_headers,
    issue_opened,
)
from fastapi.testclient import TestClient

from conftest import Desk

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
from web_helpers import Clock, make_app


@pytest.fixture
def events_desk(desk: Desk) -> Desk:
    desk.write_desk(EVENTS_DESK)
    (desk.home / ".env").write_text(
        f"AM_TOKEN={AM_TOKEN}\nGH_SECRET={GH_SECRET}\nJSON_TOKEN={JSON_TOKEN}\n", encoding="utf-8"
    )
    desk.json("inbox", "list", "--for", "alpha")  # the database exists before the server
    return desk


@pytest.fixture
def clock(events_desk: Desk) -> Clock:
    return Clock(events_desk.now_ms)


@pytest.fixture
def client(events_desk: Desk, clock: Clock) -> Iterator[TestClient]:
    with TestClient(make_app(events_desk, clock)) as c:
        yield c


def items(desk: Desk) -> list[Any]:
    with desk.db() as conn:
        rows = conn.execute(
            "SELECT id, role, source, priority, title, ref, read_at, read_by, enqueued_at "
            "FROM items ORDER BY id"
        ).fetchall()
    return [tuple(r) for r in rows]


def test_it_opens_an_alert_once_and_acknowledges_it_when_resolved(
    events_desk: Desk, client: TestClient, clock: Clock
) -> None:
    firing = body_of(alertmanager("firing"))
    got = client.post("/events/am", content=firing, headers=bearer(AM_TOKEN))
    assert got.status_code == 200, got.text
    [(item_id, role, source, priority, title, ref, read_at, _by, at)] = items(events_desk)
    assert (role, source, priority, ref) == ("alpha", "am", 3, "http://alertmanager.example")
    assert title == "DiskFull: disk 91% on db1" and read_at is None
    assert at == clock.now  # the request's clock, read once at the edge
    assert got.json()["done"] == [
        {"delivery": got.json()["done"][0]["delivery"], "duplicate": False, "id": item_id,
         "role": "alpha", "deduped": False}
    ]  # fmt: skip
    before = events_desk.dump()
    again = client.post("/events/am", content=firing, headers=bearer(AM_TOKEN))
    assert again.status_code == 200 and again.json()["done"][0]["duplicate"] is True
    assert events_desk.dump() == before  # a replayed delivery adds nothing
    clock.advance(minutes=12)
    resolved = client.post(
        "/events/am", content=body_of(alertmanager("resolved")), headers=bearer(AM_TOKEN)
    )
    assert resolved.json()["done"][0]["acked"] == [{"id": item_id, "role": "alpha"}]
    [(_, _, _, _, _, _, read_at, read_by, _)] = items(events_desk)
    assert (read_at, read_by) == (clock.now, "am")
    # Fired again after the ack: a new item, as a re-firing alert after an ack should be.
    clock.advance(minutes=5)
    refire = alertmanager("firing")
    refire["alerts"][0]["startsAt"] = "2026-12-01T14:16:00Z"
    client.post("/events/am", content=body_of(refire), headers=bearer(AM_TOKEN))
    assert [r[6] for r in items(events_desk)] == [read_at, None]


def test_the_audit_names_the_source_and_how_it_proved_itself(
    events_desk: Desk, client: TestClient
) -> None:
    client.post("/events/am", content=body_of(alertmanager("firing")), headers=bearer(AM_TOKEN))
    with events_desk.db() as conn:
        rows = conn.execute("SELECT kind, actor, auth FROM events WHERE actor = 'am'").fetchall()
    assert [tuple(r) for r in rows] == [("event.received", "am", "bearer token")]


def test_github_events_are_checked_by_signature_and_routed_by_capability(
    events_desk: Desk, client: TestClient
) -> None:
    body = body_of(issue_opened())
    got = client.post("/events/gh", content=body, headers=github_headers(body, "issues", "d-1"))
    assert got.status_code == 200, got.text
    [row] = items(events_desk)
    assert row[1:6] == (
        "beta", "gh", 1, "acme/app: issue #7 opened: crash on start",
        "https://github.com/acme/app/issues/7",
    )  # fmt: skip
    before = events_desk.dump()
    replay = client.post("/events/gh", content=body, headers=github_headers(body, "issues", "d-1"))
    assert replay.json()["done"] == [{"delivery": "d-1", "duplicate": True}]
    assert events_desk.dump() == before
    # A passing check wakes nobody; a failing one is news; a ping is answered and ignored.
    for conclusion, delivery in (("success", "d-2"), ("failure", "d-3")):
        run = body_of(check_run(conclusion))
        client.post("/events/gh", content=run, headers=github_headers(run, "check_run", delivery))
    ping = body_of({"zen": "Keep it logically awesome.", "hook_id": 1})
    pong = client.post("/events/gh", content=ping, headers=github_headers(ping, "ping", "d-4"))
    assert pong.status_code == 200 and pong.json()["note"].startswith("ignored: GitHub ping")
    assert [r[4] for r in items(events_desk)][1:] == ["acme/app: check tests failure on main"]


@pytest.mark.parametrize(
    ("path", "headers", "status", "says"),
    [
        ("/events/nope", bearer(AM_TOKEN), 404, "no event source 'nope'"),
        ("/events/am", bearer("wrong"), 401, "Bearer"),
        ("/events/am", {}, 401, "Bearer"),
        ("/events/am", bearer(JSON_TOKEN), 401, "Bearer"),  # another source's token
        ("/events/gh", github_headers(b"other body", "issues", "d-9"), 401, "X-Hub-Signature-256"),
        (
            "/events/gh",
            github_headers(b"{}", "issues", "d-9", secret="guess"),
            401,
            "X-Hub-Signature-256",
        ),
        ("/events/gh", {"X-GitHub-Event": "issues"}, 401, "X-Hub-Signature-256"),
    ],
)
def test_a_refused_delivery_writes_nothing(
    events_desk: Desk,
    client: TestClient,
    path: str,
    headers: dict[str, str],
    status: int,
    says: str,
) -> None:
    before = events_desk.dump()
    got = client.post(
        path, content=body_of(alertmanager("firing")) if "am" in path else b"{}", headers=headers
    )
    assert got.status_code == status
    assert says in got.json()["error"]["message"]
    assert events_desk.dump() == before


def test_a_body_over_the_limit_is_refused_unread(events_desk: Desk, client: TestClient) -> None:
    from deskd.service.ops.events_in import MAX_EVENT_BYTES

    before = events_desk.dump()
    big = b'{"x": "' + b"a" * MAX_EVENT_BYTES + b'"}'
    got = client.post("/events/am", content=big, headers=bearer(AM_TOKEN))
    assert got.status_code == 413 and "over" in got.json()["error"]["message"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: the stream itself is cut off
        yield from (big[i : i + 65536] for i in range(0, len(big), 65536))

    streamed = client.post("/events/am", content=chunks(), headers=bearer(AM_TOKEN))
    assert streamed.status_code == 413
    assert events_desk.dump() == before


def test_plain_json_builds_its_title_from_the_payload(
    events_desk: Desk, client: TestClient
) -> None:
    payload = {"service": "billing", "message": "queue backed up", "body": "12k jobs waiting"}
    headers = {**bearer(JSON_TOKEN), "Idempotency-Key": "job-1"}
    got = client.post("/events/hook", content=body_of(payload), headers=headers)
    assert got.status_code == 200, got.text
    with events_desk.db() as conn:
        rows = conn.execute("SELECT role, source, title, body FROM items").fetchall()
    assert [tuple(r) for r in rows] == [
        ("gamma", "hook", "billing: queue backed up", "12k jobs waiting")
    ]
    client.post("/events/hook", content=body_of(payload), headers=headers)
    assert len(items(events_desk)) == 1
    before = events_desk.dump()
    bad = client.post("/events/hook", content=body_of({"service": "x"}), headers=bearer(JSON_TOKEN))
    assert bad.status_code == 400 and "'message'" in bad.json()["error"]["message"]
    nojson = client.post("/events/hook", content=b"not json", headers=bearer(JSON_TOKEN))
    assert nojson.status_code == 400 and "not JSON" in nojson.json()["error"]["message"]
    assert events_desk.dump() == before


def test_a_source_whose_secret_is_unset_refuses_every_delivery(
    events_desk: Desk, client: TestClient
) -> None:
    (events_desk.home / ".env").write_text(f"AM_TOKEN={AM_TOKEN}\n", encoding="utf-8")
    before = events_desk.dump()
    got = client.post("/events/hook", content=b"{}", headers=bearer(""))
    assert got.status_code == 503 and "${JSON_TOKEN} is not set" in got.json()["error"]["message"]
    assert events_desk.dump() == before


@pytest.mark.parametrize(
    ("table", "says"),
    [
        (
            'source = "x"\nkind = "json"\nfor = "zeta"\ntoken = "t"',
            "events[0].for: unknown role 'zeta'",
        ),
        ('source = "x"\nkind = "json"\ntoken = "t"', "give either for = ROLE or capability"),
        ('source = "x"\nkind = "github"\nfor = "alpha"\ntoken = "t"', "checked by secret"),
        ('source = "x"\nkind = "json"\nfor = "alpha"', "checked by token"),
        ('source = "x"\nkind = "xml"\nfor = "alpha"\ntoken = "t"', "events[0].kind"),
        ('source = "system"\nkind = "json"\nfor = "alpha"\ntoken = "t"', "reserved"),
        ('source = "x"\nkind = "json"\nfor = "alpha"\ntoken = "t"\ntitle = "{a"', "{dotted.path}"),
    ],
)
def test_a_bad_events_table_is_refused_naming_the_key(desk: Desk, table: str, says: str) -> None:
    from conftest import DESK_TOML

    desk.write_desk(DESK_TOML + "\n[[events]]\n" + table + "\n")
    out = desk.run("inbox", "list", "--for", "alpha")
    assert out.exit_code != 0 and says in out.stderr, out.stderr


def test_a_declared_source_is_an_inbox_source(events_desk: Desk) -> None:
    out = events_desk.json(
        "inbox", "enqueue", "--for", "alpha", "--source", "am", "--title", "by hand"
    )
    assert out["id"] > 0


def test_an_agent_is_never_given_an_event_source_secret(events_desk: Desk) -> None:
    from deskd.config.desk_file import load_desk
    from deskd.service.paging.channels import secret_names

    withheld = secret_names(None, load_desk(events_desk.home / "deskd.toml"))
    assert {"AM_TOKEN", "GH_SECRET", "JSON_TOKEN"} <= withheld


def test_a_payload_of_the_wrong_shape_is_a_400_that_writes_nothing(
    events_desk: Desk, client: TestClient
) -> None:
    before = events_desk.dump()
    body = body_of({"action": "opened", "issue": "not an object"})
    got = client.post("/events/gh", content=body, headers=github_headers(body, "issues", "d-7"))
    assert got.status_code == 400 and "not a github payload" in got.json()["error"]["message"]
    deep = b"[" * 100_000 + b"]" * 100_000
    nested = client.post("/events/hook", content=deep, headers=bearer(JSON_TOKEN))
    assert nested.status_code == 400 and "not JSON" in nested.json()["error"]["message"]
    assert events_desk.dump() == before


@pytest.mark.sqlite_only  # deskd prune runs on SQLite desks (it reads PRAGMAs)
def test_prune_forgets_old_delivery_ids(events_desk: Desk, client: TestClient) -> None:
    client.post("/events/am", content=body_of(alertmanager("firing")), headers=bearer(AM_TOKEN))
    events_desk.advance(days=100)
    events_desk.ok("prune", "--older-than", "90d")
    with events_desk.db() as conn:
        assert conn.execute("SELECT COUNT(*) FROM deliveries").fetchone()[0] == 0
