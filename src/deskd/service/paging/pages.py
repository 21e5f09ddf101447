"""Pages as people read them (`deskd pages`); sending them is the pager's job (pager.py).

Read-only: listing pages never sends or writes (lesson 43).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from deskd.core.timeparse import iso_utc, local_text
from deskd.core.values import priority_name
from deskd.service.desk.context import DeskContext
from deskd.store.pages import list_pages
from deskd.store.records import JSON, shown

if TYPE_CHECKING:
    from deskd.store.records.wakes import Page


def channel_view(entry: dict[str, Any], *, urls: bool = True) -> JSON:
    """How one channel URL of a page went; the URL was masked before it was stored, and is left out
    (``urls=False``) for an agent, which sees channel names and results only."""
    return {
        "name": entry.get("name"),
        "url": entry.get("url") if urls else None,
        "status": entry.get("status"),
        "error": entry.get("error"),
        "tries": entry.get("tries", 0),
        "at": iso_utc(entry.get("at")),
        "retry_at": iso_utc(entry.get("retry_at")),
        "until": iso_utc(entry.get("until")),
        "why": entry.get("why"),
    }


_TIMES = "next_try_at created_at sent_at resolved_at"


def page_view(page: Page, *, tz: str = "UTC", urls: bool = True) -> JSON:
    """One page as `deskd pages` and the board show it."""
    return {
        **shown(page, "id attempt_id role"),
        "reason": page.key.split(":", 1)[0],
        "ref": page.attempt_ref or page.key,
        **shown(page, "key kind"),
        "priority": priority_name(page.priority),
        **shown(page, "title body status"),
        "channels": [channel_view(e, urls=urls) for e in json.loads(page.results or "[]")],
        "held_until": iso_utc(page.held_until),
        "held_until_local": local_text(page.held_until, tz) if page.held_until else None,
        "why": page.held_why,
        **shown(page, f"tries {_TIMES}", iso=_TIMES),
    }


def pages(ctx: DeskContext, *, open_only: bool, limit: int) -> list[JSON]:
    rows = list_pages(ctx.conn, open_only=open_only, limit=limit)
    # An agent (DESKD_ROLE set) never sees a channel URL, not even masked.
    return [page_view(r, tz=ctx.tz, urls=ctx.settings.role is None) for r in rows]
