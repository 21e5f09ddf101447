"""Pauses: a person stops launching and paging for the desk (role NULL) or one role."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deskd.store.dialect import Sql
from deskd.store.records import records_of
from deskd.store.records.roles import Pause

if TYPE_CHECKING:
    from deskd.store.dialect import Connection


def live_pauses(conn: Connection) -> list[Pause]:
    rows = conn.execute("SELECT * FROM pauses WHERE ended_at IS NULL ORDER BY id")
    return records_of(Pause, rows)


def insert_pause(conn: Connection, *, role: str | None, reason: str, by: str, now: int) -> int:
    cur = conn.execute(
        "INSERT INTO pauses (role, reason, started_at, started_by) VALUES (?, ?, ?, ?) RETURNING id",
        (role, reason, now, by),
    )
    return int(cur.fetchone()[0])


_END_PAUSES = Sql(  # ``role`` is NULL for a desk-wide pause: compared with IS, not =
    sqlite="UPDATE pauses SET ended_at = ?, ended_by = ? WHERE ended_at IS NULL AND role IS ?",
    postgresql="UPDATE pauses SET ended_at = ?, ended_by = ? "
    "WHERE ended_at IS NULL AND role IS NOT DISTINCT FROM ?",
)


def end_pauses(conn: Connection, *, role: str | None, by: str, now: int) -> int:
    return conn.execute(_END_PAUSES, (now, by, role)).rowcount
