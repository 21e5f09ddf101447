"""Wake hooks (store/hooks.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Hook:
    """A wake hook: a schedule (or probe) a role registered for itself (``spec`` is JSON)."""

    id: int
    owner: str
    kind: str
    spec: str
    title: str
    body: str
    priority: int
    status: str
    created_at: int
    until_at: int | None
    next_fire_at: int | None
    last_fire_at: int | None
    fire_count: int
    missed_count: int
    error_streak: int
    last_error: str | None
    retry_at: int | None
