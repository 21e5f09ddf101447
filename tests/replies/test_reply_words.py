"""What a reply's words ask for (core/paging.py): a table of real mail clients' replies."""

from __future__ import annotations

import pytest

from deskd.core.paging import page_of_subject, page_token, read_reply


@pytest.mark.parametrize(
    ("body", "action", "seconds"),
    [
        ("ack", "ack", None),
        ("ACK.\n\nOn Tue, 1 Dec 2026, deskd wrote:\n> resolve", "ack", None),
        ("Snooze 2 h", "snooze", 7200),
        ("snooze 30m\n-- \nsent from my phone", "snooze", 1800),
        ("resolve!", "resolve", None),
        ("\n\n> ack\n", "text", None),  # only quoted text: nothing said
        ("ack the disk alert later, restarting db1 first", "text", None),
        ("snooze until monday", "text", None),
    ],
)
def test_it_reads_the_first_unquoted_line(body: str, action: str, seconds: int | None) -> None:
    reply = read_reply(body)
    assert (reply.action, reply.seconds) == (action, seconds)


def test_a_page_token_survives_a_reply_subject() -> None:
    subject = f"Re: RE: deskd: alpha has not answered {page_token(42, 'k3Xf9a-_Q2')}"
    assert page_of_subject(subject) == (42, "k3Xf9a-_Q2")
    assert page_of_subject("Re: [deskd page 42]") == (42, "")  # no tag: the reader refuses it
    assert page_of_subject("Re: deskd: no token here") is None
