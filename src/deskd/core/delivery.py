"""Delivery state of one item for its recipient, derived at read time (docs/contract.md ledger)."""

from __future__ import annotations

LEDGER_STATES: tuple[str, ...] = ("queued", "notified", "read", "escalated", "overdue")


def ledger_state(
    *,
    read_at: int | None,
    notified_at: int | None,
    sla_due_at: int,
    now: int,
    escalated: bool = False,
) -> str:
    """Precedence ``read`` > ``escalated`` > ``overdue`` > ``notified`` > ``queued``.

    ``escalated`` is an overdue item that a live wake attempt covers (the wake engine
    passes it); without one, an unread item past its SLA is ``overdue``.
    """
    if read_at is not None:
        return "read"
    overdue = now >= sla_due_at
    if overdue and escalated:
        return "escalated"
    if overdue:
        return "overdue"
    if notified_at is not None:
        return "notified"
    return "queued"
