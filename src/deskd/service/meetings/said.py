"""``Said``: what ``meeting send`` (and a position statement) did, as the CLI prints it.

In a module of its own: ``meeting updates`` imports talk.py too and builds no such record
(a frozen dataclass costs ~1 ms of CPU to build, docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class Said:
    """What a message in a meeting did: its id, the meeting's state and budget, what it settled."""

    meeting_id: int
    message_id: int
    state: str
    budget_left: int
    settled: list[int] = field(default_factory=list)
    owed_by_you: list[dict[str, Any]] = field(default_factory=list)
    owed_to_you: str | None = None
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "meeting_id": self.meeting_id,
            "message_id": self.message_id,
            "state": self.state,
            "budget_left": self.budget_left,
            "settled": self.settled,
            "owed_by_you": self.owed_by_you,
            "reply_owed_by": self.owed_to_you,
            "warning": "; ".join(self.warnings) or None,
        }
