"""What the store speaks to: a connection of either backend, and the SQL both of them run.

Every statement is written once, in SQL that SQLite and PostgreSQL both accept, except the
few where the two differ (a scalar ``MAX(a, b)``, ``a IS ?`` on a nullable column, SQLite's
planner hints ``INDEXED BY``): those are an ``Sql`` pair next to the code that runs them,
and the connection picks its own half. The one mechanical difference is the placeholder:
the store writes ``?``, and the PostgreSQL connection sends ``%s`` (``placeholders``).

Stdlib only, and small: the session hook imports it on every tool call.
"""

from __future__ import annotations

import re
from functools import lru_cache

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; mypy reads it as True


class Sql:
    """One statement in each dialect, for the few the two backends cannot share. A plain
    class with slots: typing (a NamedTuple) is too slow to import on the hook's path."""

    __slots__ = ("postgresql", "sqlite")

    def __init__(self, *, sqlite: str, postgresql: str) -> None:
        self.sqlite = sqlite
        self.postgresql = postgresql

    def __repr__(self) -> str:
        return f"Sql(sqlite={self.sqlite!r}, postgresql={self.postgresql!r})"


Statement = str | Sql
"""What ``Connection.execute`` takes: portable text, or a pair."""

if TYPE_CHECKING:  # the connection's shape, for the type checker
    from collections.abc import Collection, Iterator, Sequence
    from typing import Any, Protocol

    class Row(Protocol):
        """A result row: ``row[0]``, ``row["name"]``, ``row.keys()`` (``sqlite3.Row`` and
        ``store.rows.Row``, PostgreSQL's, both are one)."""

        def __getitem__(self, key: Any, /) -> Any: ...
        def keys(self) -> list[str]: ...

    class Cursor(Protocol):
        """What ``execute`` returns."""

        @property
        def rowcount(self) -> int: ...
        def fetchone(self) -> Any: ...
        def fetchall(self) -> list[Any]: ...
        def __iter__(self) -> Iterator[Any]: ...

    class Connection(Protocol):
        """A store connection (``store.db.connect``): SQLite's or PostgreSQL's, in autocommit
        mode; transactions are ``store.db.transaction`` / ``read_transaction``."""

        @property
        def dialect(self) -> str: ...
        @property
        def in_transaction(self) -> bool: ...

        busy_ms: int
        """How long a write transaction's ``begin`` waits for the locks it takes."""

        def execute(self, sql: Statement, params: Sequence[Any] = (), /) -> Cursor: ...
        def begin(
            self, *, write: bool, roles: Collection[str] | None = None, notify: bool = True
        ) -> None: ...
        def close(self) -> None: ...

else:  # at run time only a name to import: typing stays unimported on the hook's path
    Row = Cursor = Connection = object

_PLACEHOLDER = r"'(?:[^']|'')*'|\?|%"  # compiled on first use (re caches it): PostgreSQL only


def _swap(match: re.Match[str]) -> str:
    token = match.group(0)
    return "%s" if token == "?" else token.replace("%", "%%")


@lru_cache(maxsize=1024)
def placeholders(sql: str) -> str:
    """``sql`` with psycopg's placeholders: ``?`` becomes ``%s`` (not inside a string
    literal), and every ``%`` is ``%%`` (psycopg reads one anywhere as a placeholder)."""
    return re.sub(_PLACEHOLDER, _swap, sql)
