"""The role's current session as one indexed row (applied as one migration, see migrations.py).

A role's current session is its live one (``working``/``resting``; ``record_heartbeat``
keeps at most one) or else its newest row. ``sessions_role_live`` finds the live one by
role without reading the role's history; the newest row comes from ``sessions_role``.
"""

from __future__ import annotations

SQL = """
CREATE INDEX sessions_role_live ON sessions(role, id) WHERE state IN ('working', 'resting');
"""
