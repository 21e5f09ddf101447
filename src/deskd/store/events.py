"""The event log: one row per thing that happened, for audit and the console's timeline."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from deskd.store.dialect import Connection


def add_event(
    conn: Connection,
    *,
    at: int,
    kind: str,
    role: str | None = None,
    actor: str | None = None,
    subject: str | None = None,
    detail: Mapping[str, Any] | None = None,
) -> int:
    cur = conn.execute(
        "INSERT INTO events (at, kind, role, actor, subject, detail) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
        (at, kind, role, actor, subject, json.dumps(detail or {}, sort_keys=True)),
    )
    return int(cur.fetchone()[0])
