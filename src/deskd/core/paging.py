"""A page's per-URL delivery state, as pure functions from one frozen state to the next.

Each channel URL a page goes to is an ``Entry``: ``pending`` (routed, not tried yet),
``sent``, ``failed`` (tried again after a backoff until the 24 h window ends, then given up)
or ``held`` (quiet hours on its channel, until an instant). The pager
(service/paging/pager.py) reads a page, runs these functions, and writes what they return;
nothing here does I/O or reads the clock (docs/architecture.md "Pages and channels",
lessons 12–13).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

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

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Entry:
        return cls(
            name=str(data["name"]),
            url=str(data["url"]),
            status=str(data.get("status") or "pending"),
            error=data.get("error"),
            tries=int(data.get("tries") or 0),
            at=data.get("at"),
            retry_at=data.get("retry_at"),
            until=data.get("until"),
            why=data.get("why"),
            gave_up=bool(data.get("gave_up")),
        )

    def to_json(self) -> dict[str, Any]:
        return self._asdict()


class Outcome(NamedTuple):
    """What the page row says after a look: its status, when to look again, any hold."""

    status: str
    next_try_at: int | None
    held_until: int | None = None
    held_why: str | None = None
    closed: bool = False


def entries_of(results: str | None) -> tuple[Entry, ...]:
    """The entries stored in a page's ``results`` JSON column."""
    return tuple(Entry.from_json(e) for e in json.loads(results or "[]"))


def results_of(entries: Sequence[Entry]) -> str:
    return json.dumps([e.to_json() for e in entries])


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
    entries: Sequence[Entry],
    *,
    quiet: Mapping[str, tuple[int, str]],
    now: int,
    created_at: int,
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
        status=status,
        next_try_at=next_try,
        held_until=held_until,
        held_why=held_why,
        closed=closed,
    )
