"""An attempt row as the contract's JSON, for the wake ledger and the board.

Apart from service/engine/wake.py, which also plans and explains: the board (``deskd
status``) shows attempts and must not import the planner and its records to do so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from deskd.core.timeparse import iso_utc

if TYPE_CHECKING:
    from deskd.store.records.wakes import Attempt


class WakeView(TypedDict):
    """A wake (an attempt) as `wake list --json` and the board show it."""

    id: int
    role: str
    reason: str
    key: str
    ref: str | None
    rung: str
    level: int
    generation: int
    outcome: str
    launch_status: str | None
    attempted_at: str | None
    due_at: str | None
    launched_at: str | None
    landed_at: str | None
    resolved_at: str | None
    detail: str
    acked: bool


def attempt_view(row: Attempt) -> WakeView:
    return {
        "id": row.id,
        "role": row.role,
        "reason": row.kind,
        "key": row.key,
        "ref": row.ref,
        "rung": row.rung,
        "level": row.level,
        "generation": row.generation,
        "outcome": row.outcome,
        "launch_status": row.launch_status,
        "attempted_at": iso_utc(row.attempted_at),
        "due_at": iso_utc(row.due_at),
        "launched_at": iso_utc(row.launched_at),
        "landed_at": iso_utc(row.landed_at),
        "resolved_at": iso_utc(row.resolved_at),
        "detail": row.launch_detail or row.outcome_reason or row.reason,
        "acked": row.ack_until is not None,
    }
