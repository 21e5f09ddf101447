"""Deliveries that came in (applied as one migration): each event a sender posted to
``/events/<source>`` and each emailed reply to a page, by the sender's own id.

The primary key (source, delivery id) is what makes a replayed delivery add nothing: the row
is claimed in the same transaction as the item it makes, so a replay finds it and stops.
"""

from __future__ import annotations

SQL = """
CREATE TABLE deliveries (
    source $TEXT NOT NULL,
    delivery $TEXT NOT NULL,
    received_at $INT NOT NULL,
    PRIMARY KEY (source, delivery)
);
"""
