"""A page's per-URL delivery state, as pure functions from one frozen state to the next.

Each channel URL a page goes to is an ``Entry``: ``pending`` (routed, not tried yet),
``sent``, ``failed`` (tried again after a backoff until the 24 h window ends, then given up)
or ``held`` (quiet hours on its channel, until an instant). The pager
(service/paging/pager.py) reads a page, runs these functions, and writes what they return;
nothing here does I/O or reads the clock (docs/architecture.md "Pages and channels",
lessons 12–13).

A reply by email to a page is read here too: the page's subject carries
``[deskd page N TAG]``, TAG a MAC of N under the desk's key (made and checked in
service/paging/links.py; core only parses); a reply keeps it (``Re: …``). Its first line that
is not quoted says what to do: ``ack``, ``snooze 2h``, ``resolve``, or anything else, which
goes to the role as an item from the person.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from deskd.core.timeparse import parse_duration
from deskd.errors import DeskdError

RETRY_WINDOW_MS = 24 * 3600 * 1000
BACKOFF_CAP_MIN = 60
RECHECK_MS = 60 * 1000
"""A hold with no known end (a pause) is looked at again on the next tick."""

Hold = tuple[int | None, str]
"""Why a whole page waits: (until, or None when the end is unknown; a sentence)."""


class Entry(NamedTuple):
    """One channel URL of a page (the URL masked before it is stored)."""

    name: str
    url: str
    status: str = "pending"
    error: str | None = None
    tries: int = 0
    at: int | None = None
    retry_at: int | None = None
    until: int | None = None
    why: str | None = None
    gave_up: bool = False


class Outcome(NamedTuple):
    """What the page row says after a look: its status, when to look again, any hold."""

    status: str
    next_try_at: int | None
    held_until: int | None = None
    held_why: str | None = None
    closed: bool = False


def entries_of(results: str | None) -> tuple[Entry, ...]:
    """The entries stored in a page's ``results`` JSON column (a field an older deskd did not
    store takes its default)."""
    fields = Entry._fields
    return tuple(
        Entry(**{k: v for k, v in e.items() if k in fields}) for e in json.loads(results or "[]")
    )


def results_of(entries: Sequence[Entry]) -> str:
    return json.dumps([e._asdict() for e in entries])


def backoff_ms(tries: int) -> int:
    """1, 2, 4 … minutes after the 1st, 2nd, 3rd … failed try, capped at an hour."""
    minutes: int = min(BACKOFF_CAP_MIN, 2 ** max(0, tries - 1))
    return minutes * 60 * 1000


def expired(created_at: int, *, now: int) -> bool:
    """Past the retry window: failed URLs are given up, not tried again."""
    return now >= created_at + RETRY_WINDOW_MS


def mark(entry: Entry, *, ok: bool, error: str | None, now: int) -> Entry:
    """The entry after one try: ``sent``, or ``failed`` with the next try after a backoff."""
    tries = entry.tries + 1
    tried = entry._replace(tries=tries, at=now, until=None, why=None)
    if ok:
        return tried._replace(status="sent", error=None, retry_at=None)
    return tried._replace(status="failed", error=error, retry_at=now + backoff_ms(tries))


def triage(
    entries: Sequence[Entry], *, quiet: Mapping[str, tuple[int, str]], now: int, created_at: int
) -> tuple[tuple[Entry, ...], tuple[int, ...]]:
    """The entries after this look, and the indexes of those to send now.

    A sent entry is done; a failed one waits for its ``retry_at`` (or is given up once the
    window ended); an entry whose channel is in quiet hours (``quiet``: channel name → until
    and why, only for pages quiet hours apply to) is held until the hours end.
    """
    gone = expired(created_at, now=now)
    after: list[Entry] = []
    due: list[int] = []
    for index, e in enumerate(entries):
        if e.status == "sent":
            after.append(e)
        elif e.status == "failed" and (gone or (e.retry_at or 0) > now):
            after.append(e._replace(gave_up=True) if gone else e)
        elif e.name in quiet:
            until, why = quiet[e.name]
            after.append(e._replace(status="held", until=until, why=why))
        else:
            after.append(e)
            due.append(index)
    return tuple(after), tuple(due)


def outcome(
    entries: Sequence[Entry],
    *,
    kind: str,
    created_at: int,
    now: int,
    hold: Hold | None = None,
    recheck: bool = False,
) -> Outcome:
    """The page's status and next look from its entries (and a hold on the whole page)."""
    sent = [e for e in entries if e.status == "sent"]
    failed = [e for e in entries if e.status == "failed"]
    held = [e for e in entries if e.status == "held"]
    if entries and len(sent) == len(entries):
        status = "sent"
    elif sent:
        status = "partial"
    elif failed:
        status = "failed"
    elif held or (hold is not None and entries):
        status = "held"
    else:
        status = "held" if hold is not None and hold[0] is not None else "queued"
    gone = expired(created_at, now=now)
    wakes = [e.retry_at for e in failed if e.retry_at and not gone]
    wakes += [e.until for e in held if e.until]
    held_until: int | None = None
    held_why: str | None = None
    if hold is not None:
        held_until, held_why = hold
        wakes = [held_until] if held_until is not None else []
    elif held:
        first = min(held, key=lambda e: e.until or 0)
        held_until, held_why = first.until, first.why
    if recheck:
        wakes.append(now + RECHECK_MS)
    if hold is None and any(e.status == "pending" for e in entries):
        wakes.append(now)
    next_try = min(wakes) if wakes else None
    # A one-shot message (a notice, a "settled") is closed once nothing is left to try.
    closed = next_try is None and kind in ("notice", "settled")
    return Outcome(
        status=status, next_try_at=next_try, held_until=held_until, held_why=held_why, closed=closed
    )


# --- replies by email -------------------------------------------------------------------

_TOKEN = re.compile(r"\[deskd page (\d{1,18})(?: ([A-Za-z0-9_-]{1,40}))?\]")


class Reply(NamedTuple):
    """``action`` is ``ack``, ``snooze``, ``resolve`` or ``text``; ``seconds`` a snooze's length."""

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
