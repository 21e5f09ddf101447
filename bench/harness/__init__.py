"""Harness code the tests and the bench share, never shipped with deskd: a throwaway
PostgreSQL cluster (``pgcluster``), a throwaway PgBouncer (``pgbouncer``) and the scale
bench's simulated desk of many hosts (``scale``, ``race``).

A bench script run as ``python bench/NAME.py`` has ``bench/`` first on ``sys.path``; pytest
adds it through the ``pythonpath`` option in pyproject.toml. Importing this package imports
nothing else.
"""

from __future__ import annotations
