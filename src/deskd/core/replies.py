"""Replies by email to a page, read as what the person asked: pure rules, no I/O.

A page's subject carries ``[deskd page N TAG]``, TAG a MAC of N under the desk's key (made
and checked in service/paging/links.py; core only parses); a reply keeps it (``Re: …``).
Its first line that is not quoted says what to do: ``ack``, ``snooze 2h``, ``resolve``, or
anything else, which goes to the role as an item from the person.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from deskd.core.timeparse import parse_duration
from deskd.errors import DeskdError

_TOKEN = re.compile(r"\[deskd page (\d{1,18})(?: ([A-Za-z0-9_-]{1,40}))?\]")
REPLY_ACTIONS = ("ack", "snooze", "resolve")


class Reply(NamedTuple):
    """``action`` is one of REPLY_ACTIONS or ``text``; ``seconds`` a snooze's length."""

    action: str
    text: str
    seconds: int | None = None


def page_token(page_id: int, tag: str) -> str:
    """What a page's subject carries so an emailed reply finds its page and proves it saw it."""
    return f"[deskd page {page_id} {tag}]"


def page_of_subject(subject: str) -> tuple[int, str] | None:
    """The (page id, tag) a subject's token names; the tag is "" when the token has none."""
    found = _TOKEN.search(subject or "")
    return (int(found.group(1)), found.group(2) or "") if found else None


def read_reply(body: str) -> Reply:
    """What a reply's text asks for: its first line that is not quoted or blank."""
    lines = [ln.strip() for ln in body.splitlines()]
    # A mail client's "On … wrote:" line starts the quote: everything after it is the page.
    kept = []
    for line in lines:
        if line.startswith(">") or (line.startswith("On ") and line.endswith("wrote:")):
            break
        kept.append(line)
    text = "\n".join(kept).strip()
    first = text.splitlines()[0].lower().rstrip(".!") if text else ""
    word, _, rest = first.partition(" ")
    if word in ("ack", "resolve") and not rest.strip():
        return Reply(word, text)
    if word == "snooze":
        try:
            return Reply("snooze", text, parse_duration(rest.strip().replace(" ", "")))
        except DeskdError:
            pass
    return Reply("text", text)
