"""The missed-tick alarm's ledger, applied as one migration (see store/migrations.py).

- ``tick_alarms``: one row per message the console's missed-tick check sends: ``stopped``
  when a host's executing ticks stop, ``settled`` when they resume. Written before the
  channels are called and completed after, with one result per channel URL in ``results``
  (the pager's format). A desk-level message belongs to no role and no wake attempt, which
  every ``pages`` row needs, hence a table of its own.
- ``tick_alarms_once``: one ``stopped`` (and one ``settled``) per host per silence, named by
  the host's last tick before it, so two consoles checking at once page once.
"""

from __future__ import annotations

SQL = """
CREATE TABLE tick_alarms (
    id $ID,
    host $TEXT NOT NULL,
    kind $TEXT NOT NULL CHECK (kind IN ('stopped', 'settled')),
    last_tick_at $INT NOT NULL,
    title $TEXT NOT NULL,
    body $TEXT NOT NULL DEFAULT '',
    status $TEXT NOT NULL DEFAULT 'queued'
        CHECK (status IN ('queued', 'held', 'sent', 'partial', 'failed', 'resolved')),
    created_at $INT NOT NULL,
    tries $INT NOT NULL DEFAULT 0,
    next_try_at $INT,
    sent_at $INT,
    held_why $TEXT,
    results $TEXT NOT NULL DEFAULT '[]'
);
CREATE UNIQUE INDEX tick_alarms_once ON tick_alarms(host, kind, last_tick_at);
CREATE INDEX tick_alarms_due ON tick_alarms(next_try_at) WHERE next_try_at IS NOT NULL;
"""
