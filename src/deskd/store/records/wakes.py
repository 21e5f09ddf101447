"""The wake ledger and what it sends: attempts, pages, tick alarms
(store/attempts.py, pages.py, tick_alarms.py)."""

from __future__ import annotations

from typing import NamedTuple


class Attempt(NamedTuple):
    """One row of the wake ledger (``item_ids``/``task_ids`` are the stored JSON lists)."""

    id: int
    key: str
    kind: str
    role: str
    generation: int
    rung: str
    level: int
    reason: str
    ref: str | None
    item_ids: str
    task_ids: str
    attempted_at: int
    due_at: int | None
    outcome: str
    outcome_reason: str | None
    resolved_at: int | None
    supersedes: int | None
    recycles: int
    skipped: str | None
    launch_status: str | None
    launch_detail: str | None
    primary_id: int | None
    wake_token: str | None
    prompt: str | None
    session_id: str | None
    planned_at: int | None
    launched_at: int | None
    landed_at: int | None
    finished_at: int | None
    exit_code: int | None
    failure_class: str | None
    failure_detail: str | None
    hold_until: int | None
    cost_usd: float | None
    acked_at: int | None
    ack_until: int | None
    ack_note: str | None
    launch_runs: int = 0
    """Runs of the agent CLI for this launch (in-rung retries included)."""
    launch_host: str | None = None
    """The host whose executor runs it (None: any, a desk of one host)."""


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
