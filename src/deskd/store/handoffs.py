"""Hand-offs between a role's sessions, and the session-history reads of the lifecycle:
live sessions from an earlier desk day, rollover tries, and the wakes each session served."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from deskd.core.records import Attempt
from deskd.store.dialect import Connection
from deskd.store.query import marks
from deskd.store.records import maybe_record, records_of
from deskd.store.records.roles import Handoff, Session

# A rollover try is a launch of the key that ended: it ran (finished, failed, timed out) or
# its executor found the role lock held. A launch skipped by the planner (never planned) or
# dropped because its attempt closed first is not a try.
_TRY = (
    "planned_at IS NOT NULL AND (launched_at IS NOT NULL OR launch_detail = 'role busy') "
    "AND launch_status IN ('finished', 'failed', 'timed_out', 'skipped')"
)


def insert_handoff(
    conn: Connection, *, role: str, session_id: int | None, note: str, by: str, now: int
) -> int:
    cur = conn.execute(
        "INSERT INTO handoffs (role, session_id, note, by, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id",
        (role, session_id, note, by, now),
    )
    return int(cur.fetchone()[0])


# Per role of ``w``, its newest hand-off's id through ``handoffs_role (role, id)``: the role
# is bounded on both sides and ordered on, as the sessions lookup does (store/sessions.py
# says why: with ``role = x``, PostgreSQL may walk the primary key backwards instead).
_LATEST = (
    "WITH w(role) AS (VALUES {roles}) SELECT (SELECT l.id FROM handoffs l "
    "WHERE l.role >= w.role AND l.role <= w.role ORDER BY l.role DESC, l.id DESC LIMIT 1) "
    "FROM w"
)
_ROLES = 10_000  # roles per statement, far below SQLite's 32,766 parameters


def latest_handoffs(conn: Connection, roles: Collection[str]) -> dict[str, Handoff]:
    """The newest hand-off of each of ``roles`` that has one, in two statements (not per role):
    the ids, then the rows by primary key. As one join, PostgreSQL at a thousand roles hashes
    the ids and reads every hand-off ever written to match them."""
    names = sorted(set(roles))
    ids: list[int] = []
    for at in range(0, len(names), _ROLES):
        chunk = names[at : at + _ROLES]
        sql = _LATEST.format(roles=", ".join("(?)" for _ in chunk))
        ids += [int(r[0]) for r in conn.execute(sql, chunk) if r[0] is not None]
    if not ids:  # nothing read, no record built (store/records/__init__.py)
        return {}
    found = conn.execute(f"SELECT * FROM handoffs WHERE id IN ({marks(ids)})", ids).fetchall()
    return {h.role: h for h in records_of(Handoff, found)}


def handoffs_of(conn: Connection, role: str, *, limit: int = 50) -> list[Handoff]:
    rows = conn.execute(
        "SELECT * FROM handoffs WHERE role = ? ORDER BY id DESC LIMIT ?", (role, limit)
    )
    return records_of(Handoff, rows)


def live_sessions_started_before(conn: Connection, before: int) -> list[Session]:
    """Working or resting sessions started before ``before`` (the partial index sessions_live)."""
    rows = conn.execute(
        "SELECT * FROM sessions WHERE state IN ('working', 'resting') AND started_at < ? "
        "ORDER BY started_at, id",
        (before,),
    )
    return records_of(Session, rows)


def get_session(conn: Connection, session_id: int) -> Session | None:
    row = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return maybe_record(Session, row)


def rollover_tries(conn: Connection, key: str) -> int:
    """Ended launches of a rollover key (each one a wind-down that did not end the session)."""
    row = conn.execute(f"SELECT COUNT(*) FROM attempts WHERE key = ? AND {_TRY}", (key,)).fetchone()
    return int(row[0])


def launch_attempts(conn: Connection, attempt_id: int) -> list[Attempt]:
    """A launch's attempts: its primary and every attempt riding along with it."""
    rows = conn.execute(
        "SELECT * FROM attempts WHERE id = ? OR primary_id = ? ORDER BY id",
        (attempt_id, attempt_id),
    )
    return records_of(Attempt, rows)


def session_wake_totals(
    conn: Connection, role: str, native_ids: Sequence[str]
) -> dict[str, tuple[int, float]]:
    """Per native session id: wakes landed in it (attempts) and the cost of its launches."""
    if not native_ids:
        return {}
    rows = conn.execute(
        "SELECT session_id, COUNT(landed_at), COALESCE(SUM(cost_usd), 0) "
        f"FROM attempts WHERE role = ? AND session_id IN ({marks(native_ids)}) GROUP BY session_id",
        [role, *native_ids],
    ).fetchall()
    return {str(r[0]): (int(r[1] or 0), float(r[2])) for r in rows}
