"""Pages as people read them (`deskd pages`); sending them is the pager's job."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from deskd.core.timeparse import iso_utc
from deskd.service.context import DeskContext
from deskd.store.pages import list_pages


def page_view(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "attempt_id": row["attempt_id"],
        "role": row["role"],
        "reason": str(row["key"]).split(":", 1)[0],
        "key": row["key"],
        "kind": row["kind"],
        "title": row["title"],
        "body": row["body"],
        "status": row["status"],
        "channels": json.loads(row["results"] or "[]"),
        "created_at": iso_utc(row["created_at"]),
        "sent_at": iso_utc(row["sent_at"]),
        "resolved_at": iso_utc(row["resolved_at"]),
    }


def pages(ctx: DeskContext, *, open_only: bool, limit: int) -> list[dict[str, Any]]:
    return [page_view(r) for r in list_pages(ctx.conn, open_only=open_only, limit=limit)]
