"""Capability routing: `--capability NAME` picks the most available enabled role that declares
it (online or idle first, then fewest open items and tasks, ties by name), records why on the
row, and says so in `wake explain` and on the board; with no capable role a person is paged."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "pager"))

from pager_helpers import http_receiver, page_token_of

from conftest import Desk

ROUTED_DESK = """\
[desk]
name = "test"
timezone = "America/New_York"
inbox_sources = ["alert", "signal"]
{extra}

[[roles]]
name = "alpha"
capabilities = ["triage", "review"]

[[roles]]
name = "beta"
capabilities = ["triage"]

[[roles]]
name = "gamma"
capabilities = ["deploy"]
{channels}
"""


def routed_desk(desk: Desk, *, channel: str | None = None) -> None:
    extra = 'default_channels = ["ops"]' if channel else ""
    channels = f'\n[[channels]]\nname = "ops"\nurls = ["{channel}"]\n' if channel else ""
    desk.write_desk(ROUTED_DESK.format(extra=extra, channels=channels))


def enqueue(desk: Desk, *flags: str, title: str = "new bug") -> dict[str, object]:
    out: dict[str, object] = desk.json(
        "inbox", "enqueue", "--source", "alert", "--title", title, *flags
    )
    return out


def test_it_routes_ties_by_name(desk: Desk) -> None:
    routed_desk(desk)
    out = enqueue(desk, "--capability", "triage")
    assert out["role"] == "alpha"
    assert out["routed"] == "triage: alpha never, 0 open (over beta never, 0 open)"
    row = desk.db().execute("SELECT role, capability, routed_why FROM items").fetchone()
    assert tuple(row) == ("alpha", "triage", out["routed"])


def test_it_prefers_the_role_with_fewer_open_items_and_tasks(desk: Desk) -> None:
    routed_desk(desk)
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "busy")
    out = enqueue(desk, "--capability", "triage")
    assert out["role"] == "beta"
    desk.ok("task", "add", "one", "--for", "beta")
    desk.ok("task", "add", "two", "--for", "beta")
    # beta: 1 item + 2 tasks = 3 open; alpha: 1 item — alpha takes the task
    task = desk.json("task", "add", "review it", "--capability", "triage")
    assert task["role"] == "alpha"
    assert task["routed"].startswith("triage: alpha never, 1 open (over beta never, 3 open")
    row = desk.db().execute("SELECT capability, routed_why FROM tasks WHERE id = ?", (task["id"],))
    assert tuple(row.fetchone()) == ("triage", task["routed"])


def test_it_prefers_a_live_session_over_a_lighter_load(desk: Desk) -> None:
    routed_desk(desk)
    for n in range(3):
        desk.ok("inbox", "enqueue", "--for", "beta", "--source", "alert", "--title", f"b{n}")
    desk.ok("status", "set", "--role", "beta", "--state", "resting")
    out = enqueue(desk, "--capability", "triage")
    assert out["role"] == "beta"  # idle beats never-started, even with 3 open
    assert out["routed"] == "triage: beta idle, 3 open (over alpha never, 0 open)"


def test_it_skips_disabled_roles_and_says_why_on_the_board_and_in_explain(desk: Desk) -> None:
    routed_desk(desk)
    text = (desk.home / "deskd.toml").read_text()
    desk.write_desk(text.replace('name = "alpha"\n', 'name = "alpha"\nenabled = false\n'))
    out = enqueue(desk, "--capability", "triage")
    assert (
        out["role"] == "beta"
        and out["routed"] == "triage: beta never, 0 open (the only role with it)"
    )
    board = desk.json("status")
    assert board["routed"] == [
        {"kind": "item", "id": out["id"], "role": "beta", "title": "new bug",
         "capability": "triage", "why": out["routed"]}
    ]  # fmt: skip
    assert f"routed: item {out['id']} → beta — triage: beta never" in desk.ok("status").stdout
    explain = desk.ok("wake", "explain", "--role", "beta").stdout
    assert f"item {out['id']} came by capability — triage: beta never, 0 open" in explain


def test_no_capable_role_pages_a_person_and_the_item_is_not_lost(desk: Desk) -> None:
    with http_receiver() as rx:
        routed_desk(desk, channel=rx.url())
        out = enqueue(desk, "--capability", "billing", "--body", "card declined", title="refund")
        ((_, body),) = rx.got
    assert out["unroutable"] == "billing" and out["role"] is None
    token = page_token_of(desk, out["page_ids"][0])
    assert body["title"] == f"deskd: unroutable: billing: refund {token}"
    assert "No enabled role declares the capability 'billing'" in body["message"]
    assert "declared: deploy, review, triage" in body["message"]
    assert "card declined" in body["message"] and "source alert" in body["message"]
    (wake,) = desk.json("wake", "list", "--open")
    assert (wake["id"], wake["rung"], wake["reason"]) == (out["attempt_id"], "notify", "help")
    # the holder's session is never shown it and never woken for it
    assert desk.json("tick", "--execute")["actions"] == []
    human = desk.ok("task", "add", "bill them", "--capability", "billing").stdout
    assert human.startswith("unroutable: billing — no enabled role has it; a person is paged")
    assert desk.db().execute("SELECT COUNT(*) FROM tasks").fetchone()[0] == 0


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--for", "alpha", "--capability", "triage"), "not both"),
        ((), "give --for ROLE (the role it is for) or --capability NAME"),
        (("--capability", "Bad Name"), "invalid --capability 'Bad Name'"),
        (("--capability", "triage", "--source", "nope"), "unknown source"),
    ],
)
def test_bad_routing_input_is_refused_and_changes_nothing(
    desk: Desk, flags: tuple[str, ...], message: str
) -> None:
    routed_desk(desk)
    desk.ok("roles")
    before = desk.dump()
    source = () if "--source" in flags else ("--source", "alert")
    out = desk.run("inbox", "enqueue", *source, "--title", "x", *flags)
    assert out.exit_code == 1 and message in out.stderr, out.stderr
    assert desk.dump() == before
