"""Handoff notes (store/handoffs.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Handoff:
    """A note a session left for the role's next one."""

    id: int
    role: str
    session_id: int | None
    note: str
    by: str
    created_at: int
