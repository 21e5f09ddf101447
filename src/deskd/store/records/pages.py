"""Page rows (store/pages.py, the console)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Page:
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
