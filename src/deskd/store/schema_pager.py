"""Tables of the pager issue, applied as one migration (see store/migrations.py).

- ``silences``: a person holds a role's non-urgent pages until ``until_at`` (or ``ended_at``).
- ``help_requests``: marks the item an agent created with ``deskd page --from R``; the
  ``help:<item>`` demand lives while that item is unread.
- ``pages`` gains why and until when it is held, and the ``settled`` row that retracted it.
"""

from __future__ import annotations

SQL = """
CREATE TABLE silences (
    id $ID,
    role $TEXT NOT NULL,
    reason $TEXT NOT NULL,
    started_at $INT NOT NULL,
    until_at $INT NOT NULL,
    ended_at $INT,
    started_by $TEXT,
    ended_by $TEXT
);
CREATE INDEX silences_live ON silences(role, until_at) WHERE ended_at IS NULL;

CREATE TABLE help_requests (
    item_id $INT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
    role $TEXT NOT NULL,
    created_at $INT NOT NULL
);

ALTER TABLE pages ADD COLUMN held_until $INT;
ALTER TABLE pages ADD COLUMN held_why $TEXT;
ALTER TABLE pages ADD COLUMN settled_id $INT;
CREATE INDEX pages_due ON pages(next_try_at) WHERE resolved_at IS NULL;
CREATE INDEX pages_unsettled ON pages(key)
    WHERE resolved_at IS NOT NULL AND settled_id IS NULL AND status IN ('sent', 'partial')
    AND kind IN ('page', 'follow_up');
"""
