"""Rows to frozen records: what store functions hand up instead of ``sqlite3.Row``.

A record names the columns its readers use, each typed; ``record_of`` fills it from a row by
field name, so a column added by a later migration changes nothing until a record asks for
it, and a field the query did not select falls back to the field's default (or fails loudly
when it has none). Standard library only: the session hook imports the store.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import MISSING, fields
from typing import Any, TypeVar

T = TypeVar("T")

_NAMES: dict[type, tuple[tuple[str, bool], ...]] = {}


def _fields(cls: type) -> tuple[tuple[str, bool], ...]:
    """Each field's name and whether it has a default, cached per record class."""
    found = _NAMES.get(cls)
    if found is None:
        found = tuple(
            (f.name, f.default is not MISSING or f.default_factory is not MISSING)
            for f in fields(cls)
        )
        _NAMES[cls] = found
    return found


def record_of(cls: type[T], row: sqlite3.Row) -> T:
    """``cls`` filled from ``row`` by column name."""
    present = row.keys()
    values = {
        name: row[name] for name, has_default in _fields(cls) if not has_default or name in present
    }
    made: T = cls(**values)
    return made


def maybe_record(cls: type[T], row: sqlite3.Row | None) -> T | None:
    return None if row is None else record_of(cls, row)


def records_of(cls: type[T], rows: Iterable[sqlite3.Row]) -> list[T]:
    return [record_of(cls, r) for r in rows]


def as_dict(record: Any) -> dict[str, Any]:
    """A record's fields as a plain dict (for JSON views that show every column)."""
    return {name: getattr(record, name) for name, _ in _fields(type(record))}
