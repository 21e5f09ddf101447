"""One open silence per role, enforced by the store (applied as one migration).

Racing ``deskd silence add`` calls once left a role with dozens of silences in force. A new
silence now replaces the role's open one (``store.silences.close_open``), and the unique
partial index ``silences_one_open`` makes a second open row per role impossible, on SQLite
and PostgreSQL alike. Before it is built, every role's open rows but the one that holds
longest (the one ``silence_hold`` already obeyed) are closed at their own ``until_at``: what
they held is unchanged.
"""

from __future__ import annotations

SQL = """
UPDATE silences SET ended_at = until_at, ended_by = 'deskd: one silence per role'
WHERE ended_at IS NULL AND EXISTS (
    SELECT 1 FROM silences AS later
    WHERE later.role = silences.role AND later.ended_at IS NULL
    AND (later.until_at > silences.until_at
         OR (later.until_at = silences.until_at AND later.id > silences.id))
);
CREATE UNIQUE INDEX silences_one_open ON silences(role) WHERE ended_at IS NULL;
"""
