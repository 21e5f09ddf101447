"""Missed-tick alarm rows (store/tick_alarms.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class TickAlarm:
    """One message about a host's ticks: ``stopped`` or ``settled`` (``results``: per URL)."""

    id: int
    host: str
    kind: str
    last_tick_at: int
    title: str
    body: str
    status: str
    created_at: int
    tries: int
    next_try_at: int | None
    sent_at: int | None
    held_why: str | None
    results: str
