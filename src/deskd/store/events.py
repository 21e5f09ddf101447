"""The event log: one row per thing that happened, for audit and the console's timeline; and
small desk-wide facts (``meta``: the desk's role fingerprint, the last tick)."""

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


# --- small desk-wide facts as key/value rows (the desk's role fingerprint, the last tick) ---------


def get_meta(conn: Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_meta(conn: Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
