"""``AttemptView``: a live (``pending``) attempt of the wake ledger, as the planner reads it.

In a module of its own (core/records.py names it for the planner): the snapshot builds it
for the first live attempt it reads, so a desk with none does not build it (a frozen
dataclass costs ~1 ms of CPU to build, docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class AttemptView:
    """A live (``pending``) attempt of the wake ledger."""

    id: int
    key: str
    kind: str
    role: str
    rung: str
    generation: int = 0
    attempted_at: int
    due_at: int | None = None
    launch_status: str | None = None
    launched_at: int | None = None
    landed_at: int | None = None
    finished_at: int | None = None
    failure_class: str | None = None
    launch_detail: str | None = None
    """How its launch ended, in a line (``agent executable 'claude' not found``), or why it
    was skipped (``host b is not ticking``)."""
    ack_until: int | None = None
    recycles: int = 0
    item_ids: tuple[int, ...] = ()
    task_ids: tuple[int, ...] = ()
    reason: str = ""
    """What it was for, as recorded (``1 unread item (urgent)``); a relaunch says so."""
    skipped: str | None = None
    """Why its rung could not act when it was recorded (``paused: …`` while paused)."""
