"""Where a wake ledger row goes (store/attempts.py, launches, console)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Attempt:
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
