"""Pauses of the desk or a role (store/pauses.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Pause:
    """A person's pause of the desk (``role`` None) or of one role."""

    id: int
    role: str | None
    reason: str
    started_at: int
    ended_at: int | None
    started_by: str | None
    ended_by: str | None
