"""Columns of capability routing, applied as one migration (see store/migrations.py).

- ``items.capability`` / ``tasks.capability``: the capability the work was asked of
  (``--capability``), NULL when a role was named.
- ``items.routed_why`` / ``tasks.routed_why``: why that role was chosen, as written at
  routing time (the board and ``wake explain`` show it; presence changes afterwards).
"""

from __future__ import annotations

SQL = """
ALTER TABLE items ADD COLUMN capability $TEXT;
ALTER TABLE items ADD COLUMN routed_why $TEXT;
ALTER TABLE tasks ADD COLUMN capability $TEXT;
ALTER TABLE tasks ADD COLUMN routed_why $TEXT;
"""
