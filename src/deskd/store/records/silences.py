"""Silences of a role's pages (store/silences.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Silence:
    """A person holds a role's non-urgent pages until ``until_at`` (or until ended)."""

    id: int
    role: str
    reason: str
    started_at: int
    until_at: int
    ended_at: int | None
    started_by: str | None
    ended_by: str | None
