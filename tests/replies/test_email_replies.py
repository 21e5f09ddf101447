"""Replies by email, through a real SMTP server and a real IMAP server (dovecot): a reply to
a page's email acts on that page within one tick; mail from an address the desk does not
allow, or that names no page, is left unread and counted; a reply is acted on once.

Marked ``imap``. Without dovecot (Debian's ``dovecot-imapd``; ``DESKD_DOVECOT`` names
another binary) the tier is skipped with a one-line reason, except under ``CI=true``.
"""

from __future__ import annotations

import email
import email.policy
import smtplib
import sys
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from imap_server import Imap, imap_server, smtp_into

from conftest import Desk

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pager"))
from pager_helpers import desk_with, enqueue, page_token_of, smtp_receiver

from deskd.core.paging import page_token

pytestmark = pytest.mark.imap

ONCALL = "oncall@example.com"


@pytest.fixture
def imap() -> Iterator[Imap]:
    with imap_server() as server:
        yield server


@pytest.fixture
def paged(desk: Desk, imap: Imap) -> Iterator[dict[str, Any]]:
    """alpha paged by email about an urgent item; the page's mail as the person got it."""
    desk.monkeypatch.setenv("SMTP_PASS", "pw-for-the-loopback")
    with smtp_receiver() as box:
        text = desk_with({"mail": [box.url()]}, roles={"alpha": ["mail"]})
        desk.write_desk(text + f'\n[reply]\nfrom = ["{ONCALL}", "Second@Example.com"]\n')
        enqueue(desk, "alpha", priority="urgent", title="disk 91% on db1")
        desk.json("tick", "--execute")
    ((_sender, _rcpt, content),) = box.messages
    page_mail = email.message_from_string(content, policy=email.policy.default)
    (page,) = desk.json("pages")
    desk.setenv("DESKD_REPLY_IMAP_URL", imap.url)
    with smtp_into(imap) as port:
        yield {"mail": page_mail, "page": page, "smtp": port}


def reply(
    paged: dict[str, Any], text: str, *, sender: str = ONCALL, subject: str | None = None
) -> None:
    """Send a reply to the page's mail through the SMTP server, as a mail client would."""
    original = paged["mail"]
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "deskd@example.com"
    message["Subject"] = subject if subject is not None else "Re: " + str(original["Subject"])
    message["In-Reply-To"] = str(original["Message-ID"] or "<page@deskd>")
    message["Message-ID"] = email.utils.make_msgid()
    message.set_content(f"{text}\n\nOn Tue, deskd wrote:\n> {original['Subject']}\n")
    with smtplib.SMTP("127.0.0.1", paged["smtp"], timeout=60) as smtp:
        smtp.send_message(message)


def attempt(desk: Desk, attempt_id: int) -> tuple[Any, ...]:
    with desk.db() as conn:
        row = conn.execute(
            "SELECT acked_at, ack_until, ack_note FROM attempts WHERE id = ?", (attempt_id,)
        ).fetchone()
    return tuple(row)


def test_a_snooze_by_email_holds_the_page_within_one_tick(
    desk: Desk, paged: dict[str, Any], imap: Imap
) -> None:
    assert "[deskd page " in str(paged["mail"]["Subject"])
    reply(paged, "snooze 2h")
    reply(paged, "ack", sender="stranger@example.com")  # not allowed: left unread
    reply(paged, "ack", subject="Re: something else")  # names no page: left unread
    desk.advance(minutes=1)
    tick = desk.json("tick", "--execute")
    assert tick["replies"] == {"acted": 1, "unmatched": 1, "refused": 1, "forged": 0}
    acked_at, until, note = attempt(desk, paged["page"]["attempt_id"])
    assert (acked_at, until) == (desk.now_ms, desk.now_ms + 2 * 3600 * 1000)
    assert note == f"snoozed 2 h by email from {ONCALL}"
    assert imap.unseen() == 2  # the two it did not act on stay unread, counted each tick
    desk.advance(minutes=1)
    again = desk.json("tick", "--execute")["replies"]
    assert again == {"acted": 0, "unmatched": 1, "refused": 1, "forged": 0}


def test_a_reply_with_the_page_number_but_not_its_tag_changes_nothing(
    desk: Desk, paged: dict[str, Any], imap: Imap
) -> None:
    """A forged From with a guessed page number is not enough: the subject's tag is a MAC
    of the page id under the desk's key, and a reply without the right one is not read."""
    subject, page_id = str(paged["mail"]["Subject"]), paged["page"]["id"]
    token = page_token_of(desk, page_id)
    assert subject.endswith(token) and len(token.split()[-1]) >= 11
    for forged in (f"[deskd page {page_id}]", page_token(page_id, "A" * 14)):
        reply(paged, "resolve", subject="Re: " + subject.replace(token, forged))
    rows = ("attempts", "pages", "items", "deliveries")
    before = {table: desk.dump()[table] for table in rows}
    desk.advance(minutes=1)
    tick = desk.json("tick", "--execute")
    assert tick["replies"] == {"acted": 0, "unmatched": 0, "refused": 0, "forged": 2}
    assert {table: desk.dump()[table] for table in rows} == before
    assert attempt(desk, paged["page"]["attempt_id"]) == (None, None, None)
    assert imap.unseen() == 2  # left unread for a person
    reply(paged, "ack")  # the page's own subject, tag and all: acts
    desk.advance(minutes=1)
    assert desk.json("tick", "--execute")["replies"] == {
        "acted": 1,
        "unmatched": 0,
        "refused": 0,
        "forged": 2,
    }
    assert attempt(desk, paged["page"]["attempt_id"])[0] == desk.now_ms


def test_a_reply_in_words_reaches_the_role_from_the_person(
    desk: Desk, paged: dict[str, Any]
) -> None:
    reply(paged, "Restarted the db, watch the replicas please.", sender="second@example.com")
    desk.advance(minutes=1)
    assert desk.json("tick", "--execute")["replies"]["acted"] == 1
    items = desk.json("inbox", "list", "--for", "alpha")
    said = [i for i in items if i["title"] == "Restarted the db, watch the replicas please."]
    assert len(said) == 1 and said[0]["source"] == "supervisor"


def test_a_reply_is_acted_on_once_even_when_the_tick_died_before_marking_it(
    desk: Desk, paged: dict[str, Any], imap: Imap
) -> None:
    reply(paged, "resolve")
    desk.advance(minutes=1)
    desk.json("tick", "--execute")
    before = desk.dump()
    imap.mark_all_unseen()  # as if the tick died between acting and marking the mail seen
    desk.advance(minutes=1)
    assert desk.json("tick", "--execute")["replies"]["acted"] == 1
    after = desk.dump()
    assert after["deliveries"] == before["deliveries"] and after["items"] == before["items"]
    assert imap.unseen() == 0
    with desk.db() as conn:
        read = conn.execute("SELECT read_by FROM items WHERE title = 'disk 91% on db1'").fetchone()
    assert read[0] == f"supervisor ({ONCALL} by email)"


def test_an_unreachable_mailbox_is_reported_and_the_tick_goes_on(desk: Desk) -> None:
    from web_helpers import free_port

    desk.setenv("DESKD_REPLY_IMAP_URL", f"imap://u:p@127.0.0.1:{free_port()}/INBOX")
    tick = desk.json("tick", "--execute")
    assert tick["replies"]["error"].startswith("reply mailbox:")


def test_a_bad_mailbox_url_is_refused_naming_the_variable(desk: Desk) -> None:
    out = desk.run("tick", "--execute", DESKD_REPLY_IMAP_URL="pop3://u:p@host")
    assert out.exit_code != 0 and "DESKD_REPLY_IMAP_URL" in out.stderr and "imap://" in out.stderr
