"""Agents' requests for a person (store/help.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class HelpRequest:
    """An agent's unread request for a person (``deskd page --from R``): its item."""

    id: int
    role: str
    title: str
    body: str
    enqueued_at: int
    capability: str | None
    priority: int = 0
