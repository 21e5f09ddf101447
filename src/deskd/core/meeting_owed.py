"""What a meeting still owes: open reply obligations, the open proposal to end it, and
rejections the proposer has not read — the parts of ``MeetingFacts`` (core/meetings.py)
that only exist once messages were exchanged.
"""

from __future__ import annotations

from typing import NamedTuple


class Obligation(NamedTuple):
    """An open reply obligation: ``debtor`` owes ``creditor`` a reply to ``message_id``."""

    id: int
    message_id: int
    debtor: str
    creditor: str
    due_at: int
    excerpt: str = ""


class Proposal(NamedTuple):
    """The open proposal to end the meeting, with the roles that confirmed it."""

    id: int
    proposer: str
    resolution: str
    generation: int
    opened_at: int
    confirmed: frozenset[str] = frozenset()


class Rejection(NamedTuple):
    """A rejected proposal whose notice the proposer has not read yet."""

    proposal_id: int
    proposer: str
    by: str
    reason: str
    generation: int
    at: int
