"""The pager: send queued pages through channels after the tick commits (the pager issue).

Until channels exist, a page waits in the outbox (``deskd pages``).
"""

from __future__ import annotations

from typing import Any

from deskd.service.context import DeskContext


def deliver_pages(ctx: DeskContext) -> list[dict[str, Any]]:
    """Send what is due (new pages, retries whose backoff passed, "settled" follow-ups);
    record each result. Called by an executing tick after its transaction committed."""
    return []
