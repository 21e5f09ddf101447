"""The launch rows the operator verbs read (`deskd wait`)."""

from __future__ import annotations

from deskd.core.records import Attempt
from deskd.store.dialect import Connection, Sql
from deskd.store.records import maybe_record

_NEWEST = (
    "WHERE role = ? AND launched_at IS NOT NULL AND primary_id IS NULL "
    "ORDER BY launched_at DESC, id DESC LIMIT 1"
)
_NEWEST_LAUNCH = Sql(  # PostgreSQL takes no planner hint, and finds that index by itself
    sqlite="SELECT * FROM attempts INDEXED BY attempts_launched " + _NEWEST,
    postgresql="SELECT * FROM attempts " + _NEWEST,
)


def newest_launch(conn: Connection, role: str) -> Attempt | None:
    """The role's most recently launched primary attempt (None when it never launched)."""
    return maybe_record(Attempt, conn.execute(_NEWEST_LAUNCH, (role,)).fetchone())


def launches_in_flight(conn: Connection, role: str) -> int:
    """Planned or running launches of the role."""
    row = conn.execute(
        "SELECT COUNT(*) FROM attempts WHERE role = ? AND launch_status IN ('planned', 'running')",
        (role,),
    ).fetchone()
    return int(row[0])
