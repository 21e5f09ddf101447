"""The records store functions return instead of ``sqlite3.Row``, and how rows fill them.

A record is a ``typing.NamedTuple`` naming the columns its readers use, each typed, grouped
by table in a few modules (``roles``, ``inbox``, ``work``, ``wakes``, ``meetings``).
``record_of`` fills one from a row by field name, so a column added by a later migration
changes nothing until a record asks for it, and a field the query did not select falls back
to the field's default (or fails loudly when it has none). A NamedTuple class builds in a
tenth of the time of a frozen dataclass and needs no ``dataclasses`` (nor ``inspect``) at
all (docs/performance.md).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any, TypeVar

T = TypeVar("T")


def record_of(cls: type[T], row: sqlite3.Row) -> T:
    """``cls`` filled from ``row`` by column name."""
    record: Any = cls  # a NamedTuple class: ``_fields``, ``_field_defaults``, ``_make``
    defaults = record._field_defaults
    if not defaults:
        made: T = record._make([row[name] for name in record._fields])
        return made
    present = row.keys()
    made = record(
        **{name: row[name] for name in record._fields if name in present or name not in defaults}
    )
    return made


def maybe_record(cls: type[T], row: sqlite3.Row | None) -> T | None:
    return None if row is None else record_of(cls, row)


def records_of(cls: type[T], rows: Iterable[sqlite3.Row]) -> list[T]:
    return [record_of(cls, r) for r in rows]
