"""Use cases: each takes a DeskContext (settings, desk, database, now) and does one thing."""
