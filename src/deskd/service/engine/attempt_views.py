"""An attempt row as the contract's JSON, for the wake ledger and the board.

Apart from service/engine/wake.py, which also plans and explains: the board (``deskd
status``) shows attempts and must not import the planner and its records to do so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deskd.store.records import JSON, shown

if TYPE_CHECKING:
    from deskd.core.records import Attempt

_TIMES = "attempted_at due_at launched_at landed_at resolved_at"


def attempt_view(row: Attempt) -> JSON:
    """A wake (an attempt) as `wake list --json` and the board show it."""
    return {
        **shown(row, "id role"),
        "reason": row.kind,
        **shown(row, f"key ref rung level generation outcome launch_status {_TIMES}", iso=_TIMES),
        "detail": row.launch_detail or row.outcome_reason or row.reason,
        "acked": row.ack_until is not None,
    }
