"""Refusals: exit 1, one `deskd: ` line (or {"error": {"code", "message"}} on stderr with
--json), and nothing changed in any table (sqlite_sequence included). And "who is calling":
DESKD_ROLE is the default acting role and naming another is refused."""

from __future__ import annotations

from typing import NamedTuple

import pytest
from items_helpers import enqueue, item_row, unread_ids

from conftest import Desk

ENQ = ("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x")
SEND = ("send", "--to", "beta", "--subject", "s", "--body", "b")


class Refusal(NamedTuple):
    args: tuple[str, ...]
    role: str | None
    code: str


REFUSALS = {
    "enqueue unknown role": Refusal(
        ("inbox", "enqueue", "--for", "reseacher", "--source", "alert", "--title", "x"),
        None,
        "unknown_role",
    ),
    "enqueue unknown source": Refusal(
        ("inbox", "enqueue", "--for", "alpha", "--source", "pager", "--title", "x"),
        None,
        "unknown_source",
    ),
    "enqueue reserved source": Refusal(
        ("inbox", "enqueue", "--for", "alpha", "--source", "supervisor", "--title", "x"),
        "beta",
        "reserved_source",
    ),
    "enqueue bad priority": Refusal((*ENQ, "--priority", "critical"), None, "invalid_value"),
    "enqueue bad sla": Refusal((*ENQ, "--sla", "soon"), None, "invalid_value"),
    "enqueue zero sla": Refusal((*ENQ, "--sla", "0"), None, "invalid_value"),
    "enqueue blank title": Refusal(
        ("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "  "),
        None,
        "invalid_value",
    ),
    "enqueue long title": Refusal(
        ("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "t" * 501),
        None,
        "invalid_value",
    ),
    "enqueue long body": Refusal((*ENQ, "--body", "b" * (64 * 1024 + 1)), None, "invalid_value"),
    "list unknown role": Refusal(("inbox", "list", "--for", "reseacher"), None, "unknown_role"),
    "list another role": Refusal(("inbox", "list", "--for", "beta"), "alpha", "not_your_role"),
    "list without a role": Refusal(("inbox", "list"), None, "missing_role"),
    "list as an unknown DESKD_ROLE": Refusal(("inbox", "list"), "zeta", "unknown_role"),
    "ack another role": Refusal(
        ("inbox", "ack", "--for", "beta", "--seen"), "alpha", "not_your_role"
    ),
    "ack another role's item": Refusal(("inbox", "ack", "--id", "3"), "alpha", "unknown_item"),
    "ack an unknown id": Refusal(
        ("inbox", "ack", "--for", "alpha", "--id", "1", "--id", "99"), None, "unknown_item"
    ),
    "ack neither": Refusal(("inbox", "ack", "--for", "alpha"), None, "invalid_value"),
    "ack both": Refusal(
        ("inbox", "ack", "--for", "alpha", "--id", "1", "--seen"), None, "invalid_value"
    ),
    "ack a bad id": Refusal(
        ("inbox", "ack", "--for", "alpha", "--id", "one"), None, "invalid_value"
    ),
    "ack without a role": Refusal(("inbox", "ack", "--seen"), None, "missing_role"),
    "send as another role": Refusal((*SEND, "--from", "beta"), "alpha", "not_your_role"),
    "send without a sender": Refusal(SEND, None, "missing_role"),
    "send to an unknown role": Refusal(
        (
            "send",
            "--from",
            "alpha",
            "--to",
            "beta",
            "--to",
            "reseacher",
            "--subject",
            "s",
            "--body",
            "b",
        ),
        None,
        "unknown_role",
    ),
    "send to oneself": Refusal(
        ("send", "--to", "alpha", "--subject", "s", "--body", "b"), "alpha", "invalid_value"
    ),
    "send bad priority": Refusal((*SEND, "--priority", "meh"), "alpha", "invalid_value"),
    "send bad sla": Refusal((*SEND, "--sla", "1w"), "alpha", "invalid_value"),
    "send blank subject": Refusal(
        ("send", "--to", "beta", "--subject", "", "--body", "b"), "alpha", "invalid_value"
    ),
    "ledger unknown state": Refusal(("ledger", "--state", "lost"), None, "invalid_value"),
    "ledger unknown role": Refusal(("ledger", "--for", "reseacher"), None, "unknown_role"),
}


@pytest.fixture
def used_desk(desk: Desk) -> Desk:
    """alpha: items 1 (seen) and 2; beta: item 3; a message to gamma; an acked item 5."""
    enqueue(desk, "a1", key="k")
    desk.ok("inbox", "list", role="alpha")
    enqueue(desk, "a2", priority="urgent")
    enqueue(desk, "b1", to="beta")
    desk.ok("send", "--from", "alpha", "--to", "gamma", "--subject", "s", "--body", "b")
    enqueue(desk, "a5")
    desk.ok("inbox", "ack", "--for", "alpha", "--id", "5")
    desk.advance(minutes=1)
    return desk


@pytest.mark.parametrize("case", REFUSALS.values(), ids=REFUSALS.keys())
def test_it_refuses_with_one_line_and_changes_nothing(used_desk: Desk, case: Refusal) -> None:
    before = used_desk.dump()
    assert "sqlite_sequence" in before or "sequences" in before  # ids are compared too
    out = used_desk.run(*case.args, role=case.role)
    assert out.exit_code == 1, (out.exit_code, out.stderr)
    assert out.stdout == ""
    assert out.stderr.startswith("deskd: ") and out.stderr.count("\n") == 1, out.stderr
    assert "Traceback" not in out.stderr
    assert used_desk.dump() == before


@pytest.mark.parametrize("case", REFUSALS.values(), ids=REFUSALS.keys())
def test_it_refuses_as_json_on_stderr(used_desk: Desk, case: Refusal) -> None:
    plain = used_desk.run(*case.args, role=case.role)
    before = used_desk.dump()
    out = used_desk.run(*case.args, "--json", role=case.role)
    assert out.exit_code == 1
    assert out.stdout == ""
    assert out.error() == {
        "code": case.code,
        "message": plain.stderr.removeprefix("deskd: ").rstrip("\n"),
    }
    assert used_desk.dump() == before


def test_it_names_the_roles_only_when_the_role_was_the_mistake(used_desk: Desk) -> None:
    out = used_desk.run(
        "inbox", "enqueue", "--for", "reseacher", "--source", "alert", "--title", "x"
    )
    assert out.stderr == "deskd: unknown role 'reseacher' (roles: alpha, beta, gamma)\n"
    out = used_desk.run(*ENQ, "--priority", "critical")
    assert "alpha, beta, gamma" not in out.stderr


def test_it_treats_a_missing_option_value_as_a_usage_error(used_desk: Desk) -> None:
    assert used_desk.run("inbox", "enqueue", "--for", "alpha").exit_code == 2
    assert used_desk.run("send", "--from", "alpha").exit_code == 2


# -- who is calling ------------------------------------------------------------------------


def test_it_defaults_every_acting_flag_to_deskd_role(desk: Desk) -> None:
    enqueue(desk, "for alpha")
    enqueue(desk, "for beta", to="beta")
    assert [i["title"] for i in desk.json("inbox", "list", role="alpha")] == ["for alpha"]
    assert desk.json("inbox", "ack", "--seen", role="alpha") == {"acked": 1}
    out = desk.json("send", "--to", "beta", "--subject", "s", "--body", "b", role="alpha")
    assert item_row(desk, out["items"][0]["id"])["sender"] == "alpha"
    assert unread_ids(desk, "beta") == [2, 3]


def test_it_accepts_the_role_naming_itself(desk: Desk) -> None:
    enqueue(desk)
    assert len(desk.json("inbox", "list", "--for", "alpha", role="alpha")) == 1
    assert desk.json("inbox", "ack", "--for", "alpha", "--seen", role="alpha") == {"acked": 1}
    desk.ok(
        "send", "--from", "alpha", "--to", "beta", "--subject", "s", "--body", "b", role="alpha"
    )


@pytest.mark.parametrize(
    "args",
    [
        ("inbox", "list", "--for", "beta"),
        ("inbox", "ack", "--for", "beta", "--seen"),
        ("inbox", "ack", "--for", "beta", "--id", "2"),
        ("send", "--from", "beta", "--to", "gamma", "--subject", "s", "--body", "b"),
    ],
)
def test_it_refuses_an_agent_acting_as_another_role(desk: Desk, args: tuple[str, ...]) -> None:
    enqueue(desk)
    enqueue(desk, "for beta", to="beta")
    desk.ok("inbox", "list", role="beta")
    before = desk.dump()
    out = desk.run(*args, "--json", role="alpha")
    assert out.exit_code == 1
    error = out.error()
    assert error["code"] == "not_your_role"
    assert "'beta'" in error["message"] and "'alpha'" in error["message"]
    assert desk.dump() == before


def test_it_lets_an_agent_enqueue_for_another_role(desk: Desk) -> None:
    # --for on enqueue names the recipient, not the caller.
    assert enqueue(desk, to="beta", role="alpha") == {"id": 1, "deduped": False}


def test_it_lets_the_operator_act_for_any_role(desk: Desk) -> None:
    enqueue(desk, to="gamma")
    desk.ok("inbox", "ack", "--for", "gamma", "--id", "1")
    desk.ok("send", "--from", "gamma", "--to", "beta", "--subject", "s", "--body", "b")
    assert item_row(desk, 1)["read_by"] == "operator"
    assert item_row(desk, 2)["sender"] == "gamma"
