"""Pages reach people through real apprise sends: routing, per-URL results, partial sends,
retries with backoff, the outbox, "settled" follow-ups, and dry runs that send nothing."""

from __future__ import annotations

import email
from email.header import decode_header, make_header

import pytest
from pager_helpers import (
    desk_with,
    enqueue,
    free_port,
    http_receiver,
    no_send_waits,  # noqa: F401  (a fixture)
    page_rows,
    smtp_receiver,
)

from conftest import Desk

pytestmark = pytest.mark.usefixtures("no_send_waits")


def test_it_pages_a_loopback_json_channel_and_records_the_result(desk: Desk) -> None:
    with http_receiver() as rx:
        desk.write_desk(
            desk_with({"ops": [rx.url()]}, default=["ops"], console_url="http://desk.local:8000")
        )
        enqueue(desk, priority="urgent", title="disk 91%")
        out = desk.json("tick", "--execute")
        assert [p["status"] for p in out["pages_sent"]] == ["sent"]
        ((path, body),) = rx.got
    assert path == "/hook"
    assert body["title"].startswith("deskd: alpha has not answered")
    message = body["message"]
    for needed in ("Role: alpha", "Owed: inbox (inbox:alpha)", "disk 91%", "Since: "):
        assert needed in message, message
    assert "deskd wake ack" in message and "Console: http://desk.local:8000/" in message
    (page,) = desk.json("pages")
    assert page["status"] == "sent" and page["sent_at"] is not None
    assert page["priority"] == "urgent"
    assert [(c["name"], c["status"], c["error"]) for c in page["channels"]] == [
        ("ops", "sent", None)
    ]


def mail_text(content: str) -> tuple[str, str]:
    """(subject, plain-text body) of a received mail, decoded."""
    message = email.message_from_string(content)
    subject = str(make_header(decode_header(message["Subject"])))
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            return subject, payload.decode("utf-8")
    raise AssertionError("no text/plain part")


def test_it_mails_a_page_through_an_smtp_server(desk: Desk) -> None:
    desk.monkeypatch.setenv("SMTP_PASS", "pw-for-the-loopback")
    with smtp_receiver() as box:
        desk.write_desk(desk_with({"mail": [box.url()]}, roles={"beta": ["mail"]}))
        enqueue(desk, "beta", priority="urgent", title="queue stuck")
        desk.json("tick", "--execute")
    ((sender, rcpt, content),) = box.messages
    assert sender == "deskd@example.com" and rcpt == ["oncall@example.com"]
    subject, text = mail_text(content)
    assert subject.startswith("deskd: beta has not answered")
    assert "queue stuck" in text and "Role: beta" in text
    (page,) = desk.json("pages")
    assert page["status"] == "sent" and page["channels"][0]["name"] == "mail"


def test_a_closed_port_fails_while_another_channel_succeeds(desk: Desk) -> None:
    closed = f"json://127.0.0.1:{free_port()}/hook"
    with http_receiver() as rx:
        desk.write_desk(
            desk_with({"ops": [rx.url()], "backup": [closed]}, roles={"alpha": ["ops", "backup"]})
        )
        enqueue(desk, priority="urgent")
        desk.json("tick", "--execute")
        assert len(rx.got) == 1
    (page,) = desk.json("pages")
    assert page["status"] == "partial"
    by_name = {c["name"]: c for c in page["channels"]}
    assert by_name["ops"]["status"] == "sent"
    assert by_name["backup"]["status"] == "failed" and by_name["backup"]["error"]
    assert by_name["backup"]["retry_at"] is not None


def test_a_failed_page_is_retried_with_backoff_then_sent(desk: Desk) -> None:
    port = free_port()
    desk.write_desk(desk_with({"ops": [f"json://127.0.0.1:{port}/hook"]}, default=["ops"]))
    enqueue(desk, priority="urgent")
    desk.json("tick", "--execute")
    (row,) = page_rows(desk)
    assert (row["status"], row["tries"]) == ("failed", 1)
    assert row["next_try_at"] == desk.now_ms + 60_000  # 1 minute
    desk.advance(seconds=30)
    desk.json("tick", "--execute")
    assert page_rows(desk)[0]["tries"] == 1  # not every tick: the backoff holds
    desk.advance(seconds=30)
    desk.json("tick", "--execute")
    row = page_rows(desk)[0]
    assert (row["status"], row["tries"]) == ("failed", 2)
    assert row["next_try_at"] == desk.now_ms + 120_000  # then 2 minutes
    with http_receiver(port) as rx:
        desk.advance(minutes=1)
        desk.json("tick", "--execute")
        assert rx.got == []
        desk.advance(minutes=1)
        desk.json("tick", "--execute")
        assert len(rx.got) == 1
    row = page_rows(desk)[0]
    assert (row["status"], row["tries"]) == ("sent", 3)
    assert row["sent_at"] == desk.now_ms and row["next_try_at"] is None


def test_retries_stop_after_a_day(desk: Desk) -> None:
    desk.write_desk(desk_with({"ops": [f"json://127.0.0.1:{free_port()}/x"]}, default=["ops"]))
    enqueue(desk, priority="urgent")
    desk.json("tick", "--execute")
    desk.advance(hours=23, minutes=59)
    desk.json("tick", "--execute")
    assert page_rows(desk)[0]["tries"] == 2
    desk.advance(minutes=2)
    desk.json("tick", "--execute")
    (page,) = desk.json("pages")
    assert page["tries"] == 2 and page["status"] == "failed" and page["next_try_at"] is None


def test_a_dry_run_tick_sends_nothing_and_writes_nothing(desk: Desk) -> None:
    with http_receiver() as rx:
        desk.write_desk(desk_with({"ops": [rx.url()]}, default=["ops"]))
        enqueue(desk, priority="urgent")
        before = desk.dump()
        out = desk.json("tick")
        assert out["dry_run"] and [p["key"] for p in out["pages"]] == ["inbox:alpha"]
        assert rx.got == [] and desk.dump() == before


def test_an_outbox_page_goes_out_when_a_channel_appears(desk: Desk) -> None:
    desk.write_desk(desk_with({}))
    enqueue(desk, priority="urgent")
    desk.json("tick", "--execute")
    (page,) = desk.json("pages")
    assert page["status"] == "queued" and page["channels"] == []
    assert page["why"].startswith("outbox: no channel for alpha")
    with http_receiver() as rx:
        desk.write_desk(desk_with({"ops": [rx.url()]}, default=["ops"]))
        desk.advance(minutes=1)
        desk.json("tick", "--execute")
        assert len(rx.got) == 1
    assert desk.json("pages")[0]["status"] == "sent"


def test_notify_urls_from_the_environment_are_paged_for_every_role(desk: Desk) -> None:
    with http_receiver() as rx:
        desk.write_desk(desk_with({}))
        desk.setenv("DESKD_NOTIFY_URLS", rx.url("env"))
        enqueue(desk, "alpha", priority="urgent")
        enqueue(desk, "gamma", priority="urgent")
        desk.json("tick", "--execute")
        assert sorted(rx.paths) == ["/env", "/env"]
    assert {c["name"] for p in desk.json("pages") for c in p["channels"]} == {"DESKD_NOTIFY_URLS"}


def test_a_channel_takes_only_the_priorities_its_severity_names(desk: Desk) -> None:
    with http_receiver() as rx:
        desk.write_desk(
            desk_with(
                {"phone": [rx.url("phone")], "chat": [rx.url("chat")]},
                default=["phone", "chat"],
                extra={"phone.severity": '["urgent"]'},
            )
        )
        enqueue(desk, "alpha", priority="urgent")
        enqueue(desk, "beta", priority="high")
        desk.advance(minutes=4)  # past the inbox batch for the high item
        desk.json("tick", "--execute")
        got = sorted(rx.paths)
    assert got == ["/chat", "/chat", "/phone"]


def test_only_a_delivered_page_gets_a_settled_follow_up(desk: Desk) -> None:
    closed = f"json://127.0.0.1:{free_port()}/dead"
    with http_receiver() as rx:
        desk.write_desk(
            desk_with(
                {"ops": [rx.url()], "dead": [closed]}, roles={"alpha": ["ops"], "beta": ["dead"]}
            )
        )
        a = enqueue(desk, "alpha", priority="urgent")
        b = enqueue(desk, "beta", priority="urgent")
        desk.json("tick", "--execute")
        assert len(rx.got) == 1
        desk.ok("inbox", "ack", "--for", "alpha", "--id", str(a))
        desk.ok("inbox", "ack", "--for", "beta", "--id", str(b))
        desk.advance(minutes=1)
        out = desk.json("tick", "--execute")
        assert {c["reason"] for c in out["resolved"]} == {"items read"}
        assert len(rx.got) == 2
        assert rx.titles[1].startswith("deskd: settled — no action needed (alpha")
        assert "Settled — no action needed." in rx.got[1][1]["message"]
        desk.advance(minutes=1)
        desk.json("tick", "--execute")
        assert len(rx.got) == 2  # once
    rows = page_rows(desk)
    assert [(r["role"], r["kind"]) for r in rows if r["kind"] == "settled"] == [
        ("alpha", "settled")
    ]
    beta = next(r for r in rows if r["role"] == "beta")
    assert beta["resolved_at"] is not None and beta["settled_id"] is None


def test_a_paused_role_pages_no_one_until_resumed(desk: Desk) -> None:
    with http_receiver() as rx:
        desk.write_desk(desk_with({"ops": [rx.url()]}, default=["ops"]))
        desk.ok("pause", "--role", "alpha", "--reason", "maintenance")
        enqueue(desk, priority="urgent")
        desk.json("tick", "--execute")
        assert rx.got == [] and desk.json("pages") == []


@pytest.mark.parametrize("mode", ["never_lands"])
def test_a_wake_that_never_lands_climbs_to_a_page_and_then_hears_settled(
    desk: Desk, mode: str
) -> None:
    from pathlib import Path

    fakes = Path(__file__).resolve().parents[1] / "fakes"
    desk.setenv("DESKD_AGENT_CMD", str(fakes / "fake-claude"))
    desk.monkeypatch.setenv("FAKE_AGENT_MODE", mode)
    with http_receiver() as rx:
        # retry_wait 0s: the never-landing launches are retried without real waits.
        desk.write_desk(
            desk_with({"ops": [rx.url()]}, default=["ops"], short_ladder=False)
            + '\n[agent]\nretry_wait = "0s"\n'
        )
        item = enqueue(desk, priority="urgent")
        rungs = []
        for _ in range(14):
            out = desk.json("tick", "--execute", "--wait")
            rungs += [a["rung"] for a in out["attempts"]]
            if rx.got:
                break
            desk.advance(minutes=1)
        assert "spawn" in rungs and rungs[-1] == "notify"
        assert (
            len(rx.got) == 1
            and "The spawn rung did not land: the launch " in rx.got[0][1]["message"]
        )
        desk.ok("inbox", "ack", "--for", "alpha", "--id", str(item))
        desk.advance(minutes=1)
        desk.json("tick", "--execute", "--wait")
        assert len(rx.got) == 2 and "settled" in rx.titles[1]
