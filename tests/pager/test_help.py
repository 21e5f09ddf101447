"""`deskd page --from R`: an agent asks a person; the request is paged at once (it enters the
ladder at notify) and resolves when its item is acked, by the role or by a person."""

from __future__ import annotations

from pager_helpers import desk_with, http_receiver, page_token_of

from conftest import Desk


def test_an_agent_asks_for_help_and_a_person_is_paged_at_once(desk: Desk) -> None:
    with http_receiver() as rx:
        desk.write_desk(desk_with({"ops": [rx.url()]}, default=["ops"], short_ladder=False))
        out = desk.json(
            "page", "--title", "need prod credentials", "--body", "migration blocked", role="alpha"
        )
        assert out["attempt_id"] and out["key"] == f"help:{out['item_id']}"
        assert [p["status"] for p in out["pages_sent"]] == ["sent"]
        ((_, body),) = rx.got
    token = page_token_of(desk, out["page_ids"][0])
    assert body["title"] == f"deskd: alpha asks a person for help — need prod credentials {token}"
    assert 'alpha asks a person for help: "need prod credentials"' in body["message"]
    assert (
        "migration blocked" in body["message"] and f"Ref: item:{out['item_id']}" in body["message"]
    )
    (wake,) = desk.json("wake", "list", "--open")
    assert (wake["id"], wake["rung"], wake["reason"]) == (out["attempt_id"], "notify", "help")
    assert desk.json("tick", "--execute")["actions"] == []  # owed by a person: never launches


def test_an_agent_may_ask_only_as_its_own_role(desk: Desk) -> None:
    desk.write_desk(desk_with({}))
    desk.ok("roles")
    before = desk.dump()
    out = desk.run("page", "--from", "beta", "--title", "x", role="alpha")
    assert out.exit_code == 1 and "DESKD_ROLE" in out.stderr
    assert desk.dump() == before
    out = desk.run("page", "--title", "x")
    assert out.exit_code == 1 and "--from is required" in out.stderr


def test_help_waits_in_the_outbox_without_a_channel(desk: Desk) -> None:
    desk.write_desk(desk_with({}))
    out = desk.json("page", "--from", "gamma", "--title", "stuck")
    assert out["pages_sent"] == []
    (page,) = desk.json("pages")
    assert page["reason"] == "help" and page["status"] == "queued"
    assert page["why"].startswith("outbox")


def test_help_resolves_when_the_role_acks_its_item_and_the_person_hears_settled(
    desk: Desk,
) -> None:
    with http_receiver() as rx:
        desk.write_desk(desk_with({"ops": [rx.url()]}, default=["ops"]))
        out = desk.json("page", "--from", "alpha", "--title", "which branch?")
        desk.ok("inbox", "ack", "--for", "alpha", "--id", str(out["item_id"]), role="alpha")
        desk.advance(minutes=1)
        tick = desk.json("tick", "--execute")
        assert [(c["attempt_id"], c["reason"]) for c in tick["resolved"]] == [
            (out["attempt_id"], "help request acknowledged")
        ]
        assert len(rx.got) == 2 and rx.titles[1].startswith("deskd: settled")


def test_a_person_acking_the_help_attempt_reads_its_item(desk: Desk) -> None:
    with http_receiver() as rx:
        desk.write_desk(desk_with({"ops": [rx.url()]}, default=["ops"]))
        out = desk.json("page", "--from", "beta", "--title", "approve the migration?")
        desk.ok("wake", "ack", str(out["attempt_id"]), "--note", "dana has it")
        (item,) = [
            i for i in desk.json("ledger", "--for", "beta") if i["item_id"] == out["item_id"]
        ]
        assert item["state"] == "read"
        desk.advance(minutes=1)
        tick = desk.json("tick", "--execute")
        assert [c["outcome"] for c in tick["resolved"]] == ["resolved"]
        assert len(rx.got) == 2 and "settled" in rx.titles[1]
