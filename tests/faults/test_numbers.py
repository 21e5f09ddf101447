"""Ids and counts: ONE parser (deskd.ids) for every command.

ASCII digits only (not ``²`` or ``١``), within the option's range and SQLite's signed 64-bit
INTEGER; anything else is exit 1 with one line naming the option and the range, and nothing
is written. Every case goes through the console script's entry in-process; the last three
run it as real processes,
as agents and cron do.
"""

from __future__ import annotations

import pytest
from procs import console, deskd, refused_in_one_line

from conftest import Desk, urgent

HUGE = "99999999999999999999999"
# Every command taking an id or a count, with the bad value in place of {}.
CASES = [
    (("wake", "ack", "{}", "--note", "n"), "ATTEMPT_ID"),
    (("wake", "explain", "{}"), "ATTEMPT_ID"),
    (("wake", "list", "--limit", "{}"), "--limit"),
    (("hook", "next", "{}"), "HOOK_ID"),
    (("hook", "next", "1", "--count", "{}"), "--count"),
    (("hook", "cancel", "{}", "--by", "alpha"), "HOOK_ID"),
    (("silence", "end", "{}"), "SILENCE_ID"),
    (("silence", "list", "--limit", "{}"), "--limit"),
    (("task", "update", "{}", "--note", "n"), "TASK_ID"),
    (("task", "history", "{}"), "TASK_ID"),
    (("meeting", "call", "--by", "alpha", "--agenda", "a", "--attendees", "beta",
      "--max-messages", "{}"), "--max-messages"),
    (("meeting", "send", "{}", "--role", "alpha", "--body", "b"), "meeting"),
    (("meeting", "send", "1", "--role", "alpha", "--body", "b", "--reply-to", "{}"),
     "--reply-to"),
    (("meeting", "status", "{}"), "meeting"),
    (("agent", "run", "--attempt", "{}"), "--attempt"),
    (("inbox", "list", "--for", "alpha", "--limit", "{}"), "--limit"),
    (("inbox", "ack", "--for", "alpha", "--id", "{}"), "--id"),
    (("ledger", "--limit", "{}"), "--limit"),
    (("pages", "--limit", "{}"), "--limit"),
]  # fmt: skip
BAD = {"huge": HUGE, "5000 digits": "9" * 5000, "superscript": "²", "arabic": "١", "neg": "-1"}


@pytest.mark.parametrize("bad", BAD, ids=list(BAD))
@pytest.mark.parametrize(("args", "option"), CASES, ids=[" ".join(c[0][:2]) for c in CASES])
def test_a_bad_number_is_one_line_naming_the_option_and_range(
    desk: Desk, args: tuple[str, ...], option: str, bad: str
) -> None:
    urgent(desk)
    before = desk.dump()
    value = BAD[bad]
    if bad == "neg" and not args[args.index("{}") - 1].startswith("--"):
        value = "0"  # a leading "-" is an option to click (exit 2): 0 is out of range too
    line = refused_in_one_line(console(desk, *(value if a == "{}" else a for a in args)))
    assert option in line, line
    assert "whole number" in line, line
    assert len(line) < 400, line
    assert desk.dump() == before


def test_a_real_process_and_the_test_runner_say_the_same(desk: Desk) -> None:
    fast = deskd(desk, "inbox", "list", "--for", "alpha", "--limit", "١٠")
    slow = desk.run("inbox", "list", "--for", "alpha", "--limit", "١٠")
    assert (fast.exit_code, fast.stderr) == (slow.exit_code, slow.stderr)
    assert fast.exit_code == 1


def test_the_largest_id_is_accepted_and_reported_unknown(desk: Desk) -> None:
    line = refused_in_one_line(deskd(desk, "wake", "ack", str(2**63 - 1), "--note", "n"))
    assert "no attempt" in line


def test_an_undecodable_token_is_refused_by_a_real_process(desk: Desk) -> None:
    before = desk.dump()
    line = refused_in_one_line(deskd(desk, "heartbeat", "--role", "alpha", "--token", b"\xff\xfe"))
    assert "--token" in line and "UTF-8" in line
    assert desk.dump() == before
