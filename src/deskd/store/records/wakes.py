"""What the wake ledger sends: pages and tick alarms (store/pages.py, tick_alarms.py); an
attempt is the planner's record (core/records.py)."""

from __future__ import annotations

from typing import NamedTuple


class Page(NamedTuple):
    """One page row: a message to people about one key (``results`` is the per-URL JSON)."""

    id: int
    attempt_id: int
    key: str
    role: str
    kind: str
    priority: int
    title: str
    body: str
    status: str
    created_at: int
    sent_at: int | None
    resolved_at: int | None
    next_try_at: int | None
    tries: int
    results: str
    held_until: int | None = None
    held_why: str | None = None
    settled_id: int | None = None
    attempt_ref: str | None = None
    """Only from ``list_pages``: the attempt's ``ref`` (where the owed work lives)."""


class TickAlarm(NamedTuple):
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
