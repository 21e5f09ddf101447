"""Leases: the locks of a desk on PostgreSQL, as rows instead of held connections.

- ``leases``: one row per lock held (``tick``, ``role-alpha``): who holds it (``owner``:
  host, machine, process id and start time), a ``token`` that changes with every holder
  (the fencing token each write of the holder checks), and when it lapses unless renewed
  (``expires_at``, the server's clock in Unix milliseconds). Created on SQLite too, where
  the locks stay files under ``run/``: one schema for both backends.
"""

from __future__ import annotations

SQL = """
CREATE TABLE leases (
    name $TEXT PRIMARY KEY,
    owner $TEXT NOT NULL,
    token $INT NOT NULL,
    expires_at $INT NOT NULL
);
"""
