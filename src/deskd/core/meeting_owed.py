"""What a meeting still owes: open reply obligations, the open proposal to end it, and
rejections the proposer has not read — the parts of ``MeetingFacts`` (core/meetings.py)
that only exist once messages were exchanged.
"""

from __future__ import annotations

from typing import NamedTuple


class Obligation(NamedTuple):
    """An open reply obligation: ``debtor`` owes ``creditor`` a reply to ``message_id``, with
    the first 200 characters of the message."""

    id: int
    message_id: int
    debtor: str
    creditor: str
    due_at: int
    body: str = ""
    meeting_id: int = 0
    created_at: int = 0

    @property
    def excerpt(self) -> str:
        """The message's first line, cut at 80 characters."""
        first = self.body.strip().splitlines()[0] if (self.body or "").strip() else ""
        return first[:80] + ("…" if len(first) > 80 else "")


class Proposal(NamedTuple):
    """A proposal to end a meeting with a resolution, with the roles that confirmed it."""

    id: int
    proposer: str
    resolution: str
    generation: int
    opened_at: int
    confirmed: frozenset[str] = frozenset()
    """Read from the votes (the store leaves it empty)."""
    meeting_id: int = 0
    status: str = "open"
    closed_at: int | None = None
    rejected_by: str | None = None
    reject_reason: str | None = None
    reject_gen: int | None = None
    reject_item_id: int | None = None
