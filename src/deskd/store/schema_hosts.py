"""Tables of desks that span hosts, applied as one migration (see store/migrations.py).

- ``hosts``: every host whose tick ran against this database (``DESKD_HOST_NAME``), when it
  first and last ticked; the board shows a host that stopped ticking.
- ``attempts.launch_host``: the host whose executor runs the launch (the role's ``host``, or
  the planning host for a role bound to none); ``attempts.dispatched_at``: when that host's
  tick started the executor, so a launch is handed out once.
- ``attempts_handed``: each host's tick finds the launches handed to it without a scan.
"""

from __future__ import annotations

SQL = """
CREATE TABLE hosts (
    name $TEXT PRIMARY KEY,
    first_tick_at $INT NOT NULL,
    last_tick_at $INT NOT NULL,
    ticks $INT NOT NULL DEFAULT 0
);

ALTER TABLE attempts ADD COLUMN launch_host $TEXT;
ALTER TABLE attempts ADD COLUMN dispatched_at $INT;
CREATE INDEX attempts_handed ON attempts(launch_host)
    WHERE launch_status = 'planned' AND dispatched_at IS NULL;
"""
