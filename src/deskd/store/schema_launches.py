"""Launch bookkeeping from running the real agent CLIs, applied as one migration.

- ``launch_runs``: how many times the executor ran the agent CLI for this launch (in-rung
  retries included); each run counts against ``max_launches_per_day``.
- ``agent_pgid``: the process group of the agent CLI while it runs, so a healing tick can end
  an agent whose executor died before it marks the launch ``executor died``.
"""

from __future__ import annotations

SQL = """
ALTER TABLE attempts ADD COLUMN launch_runs $INT NOT NULL DEFAULT 0;
ALTER TABLE attempts ADD COLUMN agent_pgid $INT;
"""
