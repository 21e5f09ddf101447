"""Work held for a person to route, applied as one migration (see store/migrations.py).

- ``help_requests.held_work``: for a help request raised because no enabled role had the
  capability asked of (``--capability``), the work itself as JSON (an item's source, title,
  body, priority and ref, or a task's title, detail, priority and due date), so the first
  tick after a role gains the capability routes it there; NULL for an agent's own request.
"""

from __future__ import annotations

SQL = """
ALTER TABLE help_requests ADD COLUMN held_work $TEXT;
"""
