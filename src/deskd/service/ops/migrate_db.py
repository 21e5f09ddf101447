"""``deskd migrate-db``: move a desk from its SQLite file to a PostgreSQL database."""

from __future__ import annotations

import os
from typing import Any

from deskd.errors import (
    InvalidValue,
    SchemaBehind,
    StoreCorrupt,
    StoreError,
    TargetNotEmptyRefused,
    Unavailable,
    database_unavailable,
)


def migrate_db(source: str, target: str) -> dict[str, Any]:
    """Copy the desk at ``source`` (a SQLite file) into ``target`` (an empty PostgreSQL
    database, created by its owner beforehand); the source is read, never changed. Returns
    `migrate-db --json`: what was copied where, per table."""
    from deskd.store.db import DatabaseMissing, connect, integrity_problem, is_url, redact

    if is_url(source):
        raise InvalidValue("--from", redact(source), "the SQLite file of the desk to copy")
    if not is_url(target):
        raise InvalidValue("--to", target, "a postgresql://user@host/db URL")
    if not os.path.isfile(source):
        raise InvalidValue("--from", source, "no such file: the desk's data/deskd.db")
    try:
        from deskd.store.copy import TargetNotEmpty, copy_desk, open_source
        from deskd.store.migrations import LATEST, schema_version
    except ImportError:  # psycopg missing
        raise Unavailable("PostgreSQL needs psycopg: pip install 'deskd[pg]'") from None
    src = open_source(source)
    try:
        damaged = integrity_problem(src)
        if damaged is not None:  # before the target is touched: no empty schema left there
            raise database_unavailable(source, StoreCorrupt(damaged))
        found = schema_version(src)
        if found != LATEST:
            raise SchemaBehind(source, found, LATEST)
        try:
            dst = connect(target)
        except (StoreError, DatabaseMissing) as exc:
            raise Unavailable(f"database {redact(target)}: {exc}") from None
        try:
            copied = copy_desk(src, dst)
            version = schema_version(dst)
        except TargetNotEmpty as exc:
            raise TargetNotEmptyRefused(str(exc)) from None
        except Exception as exc:  # psycopg's own errors from the bulk copy
            raise Unavailable(f"copy into {redact(target)} failed: {exc}") from None
        finally:
            dst.close()
    finally:
        src.close()
    return {
        "from": source,
        "to": redact(target),
        "schema": version,
        "rows": copied,
        "total": sum(copied.values()),
    }
