"""``RolloverDue``: a session from an earlier desk day that must wind down.

In a module of its own (core/records.py names it for the planner): the snapshot builds it
for the first such session it finds, so a desk with none does not build it (a frozen
dataclass costs ~1 ms of CPU to build, docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class RolloverDue:
    """A session from an earlier desk day that must wind down (core/sessions rules)."""

    role: str
    session_key: str
    started_at: int
    tries: int = 0
