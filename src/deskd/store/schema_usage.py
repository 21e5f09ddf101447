"""What each launch used, as its agent CLI reported it, applied as one migration.

The columns sit on the launch's primary attempt, beside ``cost_usd`` (which was already there):
one CLI run reports its usage once, and a launch carrying several attempts is one run. NULL
means the CLI reported nothing for that figure; 0 means it reported zero (issue: budgets must
not mistake "unknown" for "free").

- ``input_tokens``, ``output_tokens``: the model's own input and output tokens;
- ``cache_read_tokens``, ``cache_write_tokens``: prompt-cache reads and writes, where the CLI
  reports them apart from its input;
- ``model``: the model the CLI says it ran.
"""

from __future__ import annotations

SQL = """
ALTER TABLE attempts ADD COLUMN input_tokens $INT;
ALTER TABLE attempts ADD COLUMN output_tokens $INT;
ALTER TABLE attempts ADD COLUMN cache_read_tokens $INT;
ALTER TABLE attempts ADD COLUMN cache_write_tokens $INT;
ALTER TABLE attempts ADD COLUMN model $TEXT;
CREATE INDEX attempts_usage ON attempts(finished_at) WHERE primary_id IS NULL AND finished_at IS NOT NULL;
"""
