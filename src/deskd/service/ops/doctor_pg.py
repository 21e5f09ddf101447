"""``deskd doctor`` for a PostgreSQL desk: the server's checks in place of the file's."""

from __future__ import annotations

from deskd.errors import StoreError
from deskd.service.ops.doctor_db import Check, schema_checks

OLDEST_SERVER = 130000
"""PostgreSQL 13: the oldest server deskd is tested against."""


def postgres_checks(url: str) -> list[Check]:
    """A PostgreSQL desk: it connects, the server is recent enough, the schema is current,
    a lease taken on one connection is seen and refused on another, and what sits between
    deskd and the server (a pooler) can serve it."""
    from deskd.store.db import redact

    shown = redact(url)
    try:
        from deskd.store.pg_probe import probe
    except ImportError:
        return [Check("database", "fail", "PostgreSQL needs psycopg: pip install 'deskd[pg]'")]
    try:
        found = probe(url)
    except StoreError as exc:
        advice = getattr(exc, "advice", None)
        detail = f"{shown}: {exc}; {advice}" if advice else f"{shown}: cannot connect: {exc}"
        return [Check("database", "fail", detail)]
    checks = [Check("database", "ok", f"{shown} connects")]
    if found.server_version_num >= OLDEST_SERVER:
        checks.append(Check("server", "ok", f"PostgreSQL {found.server_version}"))
    else:
        checks.append(
            Check("server", "fail", f"PostgreSQL {found.server_version}; deskd needs 13 or newer")
        )
    if found.schema == 0:
        checks.append(Check("schema", "warn", "empty: the first deskd command sets it up"))
    else:
        checks.extend(schema_checks(found.schema))
    if found.schema == 0:
        checks.append(Check("locks", "warn", "leases are checked once the schema is set up"))
    elif found.lock_round_trip is None:
        checks.append(Check("locks", "ok", "lease round trip between two connections"))
    else:
        checks.append(Check("locks", "fail", found.lock_round_trip))
    if found.pooler is None:
        checks.append(Check("pooler", "ok", "connected to the server itself"))
    elif found.pooler_problem is None:
        checks.append(
            Check(
                "pooler",
                "ok",
                f"{found.pooler}: supported in session and transaction pooling "
                "(deskd keeps no session state)",
            )
        )
    else:
        checks.append(Check("pooler", "fail", f"{found.pooler}: {found.pooler_problem}"))
    return checks
