"""Page action links that were used, applied as one migration.

A page's message carries signed links (acknowledge, snooze, resolve, pause the role); each
works once. ``page_links_used`` holds one row per link that acted, keyed by its signature:
the row is inserted in the same transaction as the action, so a replayed link fails on the
primary key and changes nothing, and a crash leaves either both or neither.
"""

from __future__ import annotations

SQL = """
CREATE TABLE page_links_used (
    signature $TEXT PRIMARY KEY,
    page_id $INT NOT NULL,
    action $TEXT NOT NULL,
    used_at $INT NOT NULL
);
"""
