"""The console's login state, kept in the database so a restart forgets none of it
(applied as one migration; see store/migrations.py).

- ``console_sessions``: every access-code session. A cookie is honoured only while its row
  is unrevoked, unexpired and of the current code generation, so logging out and a new
  code end sessions for good, restart or not.
- ``console_meta``: ``code_generation`` (bumped by ``deskd serve --new-code`` and whenever
  the configured code changes) and ``code_fingerprint`` (a keyed hash of the code, to notice
  that change).
- ``console_throttle``: wrong codes per client and until when its next login must wait.
- ``events.auth``: how the supervisor was authenticated for an action (``session 3``,
  ``signed alice``); empty for everyone else.
"""

from __future__ import annotations

SQL = """
CREATE TABLE console_sessions (
    id $ID,
    sid $TEXT NOT NULL UNIQUE,
    generation $INT NOT NULL,
    created_at $INT NOT NULL,
    expires_at $INT NOT NULL,
    revoked_at $INT
);
CREATE INDEX console_sessions_expiry ON console_sessions(expires_at);

CREATE TABLE console_meta (
    name $TEXT PRIMARY KEY,
    value $TEXT NOT NULL
);

CREATE TABLE console_throttle (
    client $TEXT PRIMARY KEY,
    failures $INT NOT NULL,
    last_failure_at $INT NOT NULL,
    wait_until $INT NOT NULL
);

ALTER TABLE events ADD COLUMN auth $TEXT;
"""
