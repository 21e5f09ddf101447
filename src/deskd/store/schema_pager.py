"""Tables of the pager issue, applied as one migration (see store/migrations.py).

Until this lands, the migration is this string; once released, never edit it: add a new one.
No comments inside CREATE TABLE bodies (LESSONS 42).
"""

from __future__ import annotations

SQL = """
"""
