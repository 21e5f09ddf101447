"""``HelpRequest``: an agent's open request to a person, as the planner reads it.

In a module of its own (core/records.py names it for the planner): the snapshot builds it
for the first open request it reads, so a desk with none does not build it (a frozen
dataclass costs ~1 ms of CPU to build, docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class HelpRequest:
    """An agent asked a person (`deskd page --from R`): its item, until acked."""

    item_id: int
    role: str
    title: str
    enqueued_at: int
    body: str = ""
    capability: str | None = None
    """Set when the request is work no enabled role could take (``--capability``)."""
    priority: int = 0
    """Its item's: ``high`` for an agent's request, the work's own for unroutable work."""
