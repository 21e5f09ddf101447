"""The result row of a PostgreSQL connection (``store.pg``): like ``sqlite3.Row``, read by
index or by name, with ``keys()``."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; mypy reads it as True
if TYPE_CHECKING:
    from typing import Any


class Row(tuple):  # type: ignore[type-arg]
    """A result row like ``sqlite3.Row``: ``row[0]``, ``row["name"]``, ``row.keys()``."""

    __slots__ = ()
    _index: dict[str, int] = {}  # noqa: RUF012  (set per column set, on a subclass)
    _names: tuple[str, ...] = ()

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            try:
                key = self._index[key]
            except KeyError:
                raise IndexError(f"no such column: {key}") from None
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._names)


_classes: dict[tuple[str, ...], type[Row]] = {}


def row_class(names: tuple[str, ...]) -> type[Row]:
    """The ``Row`` subclass for one set of column names, made once per set."""
    cls = _classes.get(names)
    if cls is None:
        index = {n: i for i, n in enumerate(names)}
        cls = _classes[names] = type("Row", (Row,), {"__slots__": (), "_index": index,
                                                      "_names": names})  # fmt: skip
    return cls
