"""What a meeting still owes: open reply obligations, the open proposal to end it, and
rejections the proposer has not read — the parts of ``MeetingFacts`` (core/meetings.py)
that only exist once messages were exchanged.

In a module of their own, built the first time a meeting holds one: a meeting without
them (or a desk without meetings) does not build these three records (a frozen dataclass
costs ~1 ms of CPU to build, docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Obligation:
    """An open reply obligation: ``debtor`` owes ``creditor`` a reply to ``message_id``."""

    id: int
    message_id: int
    debtor: str
    creditor: str
    due_at: int
    excerpt: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Proposal:
    """The open proposal to end the meeting, with the roles that confirmed it."""

    id: int
    proposer: str
    resolution: str
    generation: int
    opened_at: int
    confirmed: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True, kw_only=True)
class Rejection:
    """A rejected proposal whose notice the proposer has not read yet."""

    proposal_id: int
    proposer: str
    by: str
    reason: str
    generation: int
    at: int
