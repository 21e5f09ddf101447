"""Shapes many store statements share, written once: ``?`` marks for a list of values, a list
query narrowed by the filters that apply, and records built only when rows came back.

Stdlib only, and small: the session hook imports it (through store/items.py) on every tool
call. Each statement's text stays in the function that runs it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; mypy reads it as True
if TYPE_CHECKING:
    from collections.abc import Iterable, Sized
    from typing import Any

    from deskd.store.dialect import Connection, Cursor

OPEN_SQL = "('pending', 'in_progress', 'blocked')"
"""The statuses of an open task, for ``status IN …`` (the partial index ``tasks_open``)."""


def marks(values: Sized) -> str:
    """``?, ?, ?``: one placeholder per value, for ``IN (…)``."""
    return ", ".join("?" * len(values))


def select_where(
    conn: Connection,
    select: str,
    *conditions: str | tuple[str, object] | None,
    order: str,
    limit: int | None = None,
) -> Cursor:
    """``select WHERE … ORDER BY order [LIMIT ?]`` with the conditions that apply, ANDed.

    A condition is SQL without parameters, or (SQL with one ``?``, its value); None, or a
    value of None, is a filter the caller did not ask for and is left out.
    """
    where: list[str] = []
    params: list[object] = []
    for condition in conditions:
        if isinstance(condition, str):
            where.append(condition)
        elif condition is not None and condition[1] is not None:
            where.append(condition[0])
            params.append(condition[1])
    sql = f"{select} WHERE {' AND '.join(where)}" if where else select
    sql += f" ORDER BY {order}"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return conn.execute(sql, params)


def lazy_records(rows: Iterable[Any], module: str, name: str) -> list[Any]:
    """The records ``deskd.store.records.<module>.<name>`` (or ``<module>.<name>`` for a
    dotted ``module``, as ``deskd.core.records``) of ``rows``. With no rows none is
    built and the record module is not imported: the session hook's modules build records
    this way and so stay off ``typing`` (store/records/__init__.py)."""
    found = list(rows)
    if not found:
        return []
    from importlib import import_module

    from deskd.store.records import records_of

    path = module if "." in module else f"deskd.store.records.{module}"
    return records_of(getattr(import_module(path), name), found)


def lazy_record(row: Any, module: str, name: str) -> Any | None:
    """``lazy_records`` of one row, or None when there is no row."""
    found = lazy_records([] if row is None else [row], module, name)
    return found[0] if found else None
