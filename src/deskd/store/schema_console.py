"""Tables of the supervisor console, applied as one migration (see store/migrations.py).

- ``console_nonces``: every nonce a signed supervisor request carried, burned (inserted)
  before its action runs; the primary key makes a replay fail on insert. Rows older than the
  assertion window are useless (a replay that old is refused as stale) and are deleted.
"""

from __future__ import annotations

SQL = """
CREATE TABLE console_nonces (
    nonce $TEXT PRIMARY KEY,
    key_id $TEXT NOT NULL,
    seen_at $INT NOT NULL
);
CREATE INDEX console_nonces_seen ON console_nonces(seen_at);
"""
