"""Pages as people read them (`deskd pages`); sending them is the pager's job (pager.py).

Read-only: listing pages never sends or writes (LESSONS 43).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from deskd.core.timeparse import iso_utc, local_text
from deskd.core.values import priority_name
from deskd.service.desk.context import DeskContext
from deskd.store.pages import list_pages


def channel_view(entry: dict[str, Any]) -> dict[str, Any]:
    """One channel URL's result; the URL was masked before it was stored."""
    return {
        "name": entry.get("name"),
        "url": entry.get("url"),
        "status": entry.get("status"),
        "error": entry.get("error"),
        "tries": entry.get("tries", 0),
        "at": iso_utc(entry.get("at")),
        "retry_at": iso_utc(entry.get("retry_at")),
        "until": iso_utc(entry.get("until")),
        "why": entry.get("why"),
    }


def page_view(row: sqlite3.Row, *, tz: str = "UTC") -> dict[str, Any]:
    keys = row.keys()
    held_until = row["held_until"] if "held_until" in keys else None
    held_why = row["held_why"] if "held_why" in keys else None
    return {
        "id": row["id"],
        "attempt_id": row["attempt_id"],
        "role": row["role"],
        "reason": str(row["key"]).split(":", 1)[0],
        "ref": (row["attempt_ref"] if "attempt_ref" in keys else None) or str(row["key"]),
        "key": row["key"],
        "kind": row["kind"],
        "priority": priority_name(int(row["priority"])),
        "title": row["title"],
        "body": row["body"],
        "status": row["status"],
        "channels": [channel_view(e) for e in json.loads(row["results"] or "[]")],
        "held_until": iso_utc(held_until),
        "held_until_local": local_text(held_until, tz) if held_until else None,
        "why": held_why,
        "tries": row["tries"],
        "next_try_at": iso_utc(row["next_try_at"]),
        "created_at": iso_utc(row["created_at"]),
        "sent_at": iso_utc(row["sent_at"]),
        "resolved_at": iso_utc(row["resolved_at"]),
    }


def pages(ctx: DeskContext, *, open_only: bool, limit: int) -> list[dict[str, Any]]:
    rows = list_pages(ctx.conn, open_only=open_only, limit=limit)
    return [page_view(r, tz=ctx.tz) for r in rows]
