"""Out-of-range durations and times are refused where they are parsed (exit 1, nothing
written), so nothing stored can later break a read (`hook list`, `ledger`, `inbox list`)."""

from __future__ import annotations

import pytest

from conftest import Desk, urgent

ENQUEUE = ("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "t")
HOOK = ("hook", "add", "--for", "alpha", "--title", "t")


@pytest.mark.parametrize(
    "args",
    [
        (*HOOK, "--every", "3000000d"),
        (*HOOK, "--every", "99999999999999999999d"),
        (*HOOK, "--every", "9" * 5000),
        (*HOOK, "--at", "9999-12-31T23:59:59-12:00"),
        (*HOOK, "--every", "1h", "--until", "9999-12-31T23:59:59-12:00"),
        (*HOOK, "--at", "0001-01-01T00:00:00Z"),
        (*ENQUEUE, "--sla", "10000000d"),
        (*ENQUEUE, "--sla", "99999999999999999999d"),
        (
            "send",
            "--from",
            "alpha",
            "--to",
            "beta",
            "--subject",
            "s",
            "--body",
            "b",
            "--sla",
            "10000000d",
        ),
        ("task", "add", "t", "--for", "alpha", "--due", "9999-12-31T23:59:59-12:00"),
        ("silence", "add", "--role", "alpha", "--for", "10000000d", "--reason", "r"),
        ("prune", "--older-than", "99999999999999999999d"),
        ("tick", "--loop", "99999999999999999999d"),
    ],
)
def test_an_out_of_range_value_is_refused_and_writes_nothing(
    desk: Desk, args: tuple[str, ...]
) -> None:
    urgent(desk)
    before = desk.dump()
    out = desk.run(*args)
    assert out.exit_code == 1, (out.exit_code, out.stdout, out.stderr)
    assert out.stderr.startswith("deskd: ") and "Traceback" not in out.stderr
    assert "at most" in out.stderr or "between" in out.stderr, out.stderr
    assert desk.dump() == before
    for read in (("hook", "list"), ("ledger",), ("inbox", "list", "--for", "alpha")):
        desk.ok(*read)
    desk.ok("wake", "sources", "--role", "alpha")


def test_the_largest_allowed_values_are_stored_and_read_back(desk: Desk) -> None:
    desk.ok(*HOOK, "--every", "3650d", "--until", "8999-12-31T00:00:00Z")
    desk.ok(*ENQUEUE, "--sla", "3650d")
    desk.ok("task", "add", "t", "--for", "alpha", "--due", "8999-12-31T00:00")
    for read in (("hook", "list"), ("ledger",), ("inbox", "list", "--for", "alpha"), ("status",)):
        desk.ok(*read)
    desk.ok("wake", "sources", "--role", "alpha")


@pytest.mark.parametrize("value", ["99999999999", '"3000000d"'])
def test_a_desk_file_duration_out_of_range_is_refused_with_the_key(desk: Desk, value: str) -> None:
    text = (desk.home / "deskd.toml").read_text()
    desk.write_desk(
        text.replace(
            'inbox_sources = ["alert", "signal"]',
            f'inbox_sources = ["alert", "signal"]\ninbox_batch = {value}',
        )
    )
    out = desk.run("status")
    assert out.exit_code == 1
    assert "desk.inbox_batch" in out.stderr and "at most 3650d" in out.stderr
