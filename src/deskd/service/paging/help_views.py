"""Help requests (`deskd page --from R`) for the planner's snapshot."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deskd.core.records import HelpRequest
from deskd.store.help import open_help_requests

if TYPE_CHECKING:
    from deskd.store.dialect import Connection


def load_help_requests(conn: Connection, *, now: int) -> tuple[HelpRequest, ...]:
    """Every help request whose item is unread: each is a ``help:<item>`` demand."""
    rows = open_help_requests(conn)
    if not rows:
        return ()
    return tuple(
        HelpRequest(
            item_id=r.id,
            role=r.role,
            title=r.title,
            body=r.body or "",
            enqueued_at=r.enqueued_at,
            capability=r.capability,
            priority=r.priority,
        )
        for r in rows
    )
