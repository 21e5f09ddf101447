"""Questions an agent asks a person and waits on (``deskd ask``), applied as one migration.

A question pages through a help request (``item_id``, one question each) and may block the
role's current task (``task_id``). ``answered_at`` is set once, by compare-and-set: by a
person's answer, or by the tick when ``expires_at`` passes ("no answer"); ``answer_item_id``
is the urgent item that carried the answer back to the role.
"""

from __future__ import annotations

SQL = """
CREATE TABLE questions (
    id $ID,
    role $TEXT NOT NULL,
    item_id $INT NOT NULL UNIQUE,
    text $TEXT NOT NULL,
    options $TEXT,
    task_id $INT,
    asked_at $INT NOT NULL,
    expires_at $INT NOT NULL,
    answer $TEXT,
    answered_by $TEXT,
    answered_at $INT,
    answer_item_id $INT
);
CREATE INDEX questions_open ON questions(expires_at) WHERE answered_at IS NULL;
"""
