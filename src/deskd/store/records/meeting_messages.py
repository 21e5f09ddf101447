"""Replies owed, proposals and votes (store/meeting_messages.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Obligation:
    """An open reply a debtor owes a creditor, with the first 200 characters of the message."""

    id: int
    meeting_id: int
    message_id: int
    debtor: str
    creditor: str
    due_at: int
    created_at: int
    body: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Proposal:
    """A proposal to end a meeting with a resolution."""

    id: int
    meeting_id: int
    proposer: str
    resolution: str
    generation: int
    status: str
    opened_at: int
    closed_at: int | None
    rejected_by: str | None
    reject_reason: str | None
    reject_gen: int | None
    reject_item_id: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Confirmation:
    """A role's confirm vote on a proposal."""

    proposal_id: int
    role: str
