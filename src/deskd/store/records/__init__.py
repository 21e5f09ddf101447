"""The records store functions return instead of ``sqlite3.Row``, and how rows fill them.

A record is a ``typing.NamedTuple`` naming the columns its readers use, each typed: the
records only services read are here, grouped by table (``roles``, ``inbox`` with the
meetings', ``work``, ``wakes``); a stored thing the planner's rules read has its one record in
``core/`` (docs/architecture.md, "Each stored thing is declared twice"). ``record_of`` fills
one from a row by field name, so a column added by a later migration changes nothing until a
record asks for it, and a field the query did not select falls back to the field's default
(or fails loudly when it has none); a JSON list of ids (``ID_LISTS``) is read as a tuple. A
NamedTuple class builds in a tenth of the time of a frozen dataclass and needs no
``dataclasses`` (nor ``inspect``) at all (docs/performance.md).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any, TypeVar

T = TypeVar("T")
JSON = dict[str, Any]
"""A record as ``--json`` prints it and the console shows it: some of its fields, plus derived
ones (docs/contract.md fixes the keys)."""


ID_LISTS = ("item_ids", "task_ids")
"""Columns that store a JSON list of ids: a record with a default for one reads it as a tuple."""


def record_of(cls: type[T], row: sqlite3.Row) -> T:
    """``cls`` filled from ``row`` by column name."""
    record: Any = cls  # a NamedTuple class: ``_fields``, ``_field_defaults``, ``_make``
    defaults = record._field_defaults
    if not defaults:
        made: T = record._make([row[name] for name in record._fields])
        return made
    present = row.keys()
    values = {n: row[n] for n in record._fields if n in present or n not in defaults}
    for name in ID_LISTS:
        if isinstance(values.get(name), str):
            _decode_ids(values, name, keep_going="unreadable" in defaults)
    made = record(**values)
    return made


def _decode_ids(values: dict[str, Any], name: str, *, keep_going: bool) -> None:
    """``values[name]`` read from its JSON. A record with an ``unreadable`` field is built
    even when the text is not a list of ids (empty, and saying why): one corrupt row must not
    stop every reader of its table."""
    import json

    try:
        values[name] = tuple(int(i) for i in json.loads(values[name]))
    except (ValueError, TypeError) as exc:
        if not keep_going:
            raise
        values[name] = ()
        values["unreadable"] = f"{name} {exc}"


def maybe_record(cls: type[T], row: sqlite3.Row | None) -> T | None:
    return None if row is None else record_of(cls, row)


def records_of(cls: type[T], rows: Iterable[sqlite3.Row]) -> list[T]:
    return [record_of(cls, r) for r in rows]


def shown(record: Any, names: str, *, iso: str = "") -> JSON:
    """The fields ``names`` (space-separated) of ``record``, in that order; those also named in
    ``iso`` (instants in Unix ms) as the contract's ISO 8601 UTC text."""
    from deskd.core.timeparse import iso_utc

    times = iso.split()
    return {
        n: iso_utc(getattr(record, n)) if n in times else getattr(record, n) for n in names.split()
    }
