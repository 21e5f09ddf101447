"""Tables of the tasks issue, applied as one migration (see store/migrations.py).

- ``tasks``: work assigned to a role; ``priority`` is the rank of core/values.py; a stall is
  never stored (derived from the attempt ledger at read time).
- ``task_notes``: every change of a task (what changed, by whom, an optional note).
- ``handoffs``: what a session leaves for the next one (``deskd session handoff``).
- ``tasks_open`` / ``sessions_live``: the snapshot reads only live rows, through these.
- ``attempts_key``: a key's history (rollover tries, `wake explain ID`) without a scan.
- ``attempts_session``: the wakes a session served (`deskd session list`).
"""

from __future__ import annotations

SQL = """
CREATE TABLE tasks (
    id $ID,
    role $TEXT NOT NULL REFERENCES roles(name),
    title $TEXT NOT NULL,
    detail $TEXT NOT NULL DEFAULT '',
    status $TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'in_progress', 'blocked', 'done', 'cancelled')),
    priority $INT NOT NULL DEFAULT 1 CHECK (priority BETWEEN 0 AND 3),
    blocked_on $TEXT,
    due_at $INT,
    created_by $TEXT NOT NULL,
    created_at $INT NOT NULL,
    updated_at $INT NOT NULL,
    closed_at $INT,
    CHECK (status != 'blocked' OR blocked_on IS NOT NULL)
);
CREATE INDEX tasks_open ON tasks(role, id) WHERE status IN ('pending', 'in_progress', 'blocked');
CREATE INDEX tasks_role ON tasks(role, id);

CREATE TABLE task_notes (
    id $ID,
    task_id $INT NOT NULL REFERENCES tasks(id),
    at $INT NOT NULL,
    by $TEXT NOT NULL,
    change $TEXT NOT NULL DEFAULT '{}',
    note $TEXT NOT NULL DEFAULT ''
);
CREATE INDEX task_notes_task ON task_notes(task_id, id);

CREATE TABLE handoffs (
    id $ID,
    role $TEXT NOT NULL REFERENCES roles(name),
    session_id $INT REFERENCES sessions(id),
    note $TEXT NOT NULL,
    by $TEXT NOT NULL,
    created_at $INT NOT NULL
);
CREATE INDEX handoffs_role ON handoffs(role, id);

CREATE INDEX sessions_live ON sessions(started_at) WHERE state IN ('working', 'resting');
CREATE INDEX attempts_key ON attempts(key, id);
CREATE INDEX attempts_session ON attempts(session_id) WHERE session_id IS NOT NULL;
"""
