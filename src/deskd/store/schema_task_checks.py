"""Postconditions of tasks (``task add --done-when``), applied as one migration.

- ``task_checks``: one check per task. ``spec`` is ``probe:MODULE:FUNC`` or a command line;
  ``state`` is ``idle`` until the assignee says done, ``due`` until a tick has run it (a check
  that could not run stays ``due`` with ``retry_at``), ``passed`` once it closed the task.
  ``started_at`` is the ledger mark written before a run; ``failures`` counts failed runs.
"""

from __future__ import annotations

SQL = """
CREATE TABLE task_checks (
    task_id $INT PRIMARY KEY REFERENCES tasks(id),
    spec $TEXT NOT NULL,
    timeout_s $INT NOT NULL,
    state $TEXT NOT NULL DEFAULT 'idle' CHECK (state IN ('idle', 'due', 'passed')),
    claimed_at $INT,
    claimed_by $TEXT,
    started_at $INT,
    finished_at $INT,
    failures $INT NOT NULL DEFAULT 0,
    errors $INT NOT NULL DEFAULT 0,
    retry_at $INT,
    outcome $TEXT,
    output $TEXT
);
CREATE INDEX task_checks_due ON task_checks(task_id) WHERE state = 'due';
"""
