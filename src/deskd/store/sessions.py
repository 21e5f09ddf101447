"""Sessions: one row per native agent session serving a role — a history, not a row per role.

A heartbeat updates its session's row; it never adds a row per tool call. The role's
current session is its newest row. On the session hook's path: stdlib only, records built by
``query.lazy_records``; the heartbeat reads plain rows.
"""

from __future__ import annotations

from deskd.store.query import lazy_record, lazy_records, marks

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; mypy reads it as True
if TYPE_CHECKING:
    from collections.abc import Callable

    from deskd.store.dialect import Connection, Row
    from deskd.store.records.roles import Session

LIVE_STATES = ("working", "resting")
"""A session that may still be resumed; ``deskd.core.values.SESSION_STATES`` (what `status
set` accepts) names the same two, held equal by a test (the hook loads this module, not core)."""


def session_by_native(conn: Connection, role: str, native_id: str) -> Session | None:
    return lazy_record(_native_row(conn, role, native_id), "roles", "Session")


def _native_row(conn: Connection, role: str, native_id: str) -> Row | None:
    row: Row | None = conn.execute(
        "SELECT * FROM sessions WHERE role = ? AND native_id = ?", (role, native_id)
    ).fetchone()
    return row


def sessions_of(conn: Connection, role: str, *, limit: int = 50) -> list[Session]:
    rows = conn.execute(
        "SELECT * FROM sessions WHERE role = ? ORDER BY id DESC LIMIT ?", (role, limit)
    )
    return lazy_records(rows, "roles", "Session")


def insert_session(
    conn: Connection, *, role: str, native_id: str | None, agent: str, now: int
) -> int:
    cur = conn.execute(
        "INSERT INTO sessions (role, native_id, agent, state, started_at) "
        "VALUES (?, ?, ?, 'working', ?) RETURNING id",
        (role, native_id, agent, now),
    )
    return int(cur.fetchone()[0])


def supersede_live_sessions(conn: Connection, role: str, *, keep: int, now: int) -> int:
    """A newer native session took over the role: the older live ones are no longer resumed."""
    return conn.execute(
        "UPDATE sessions SET state = 'superseded', ended_at = ?, end_reason = 'superseded' "
        "WHERE role = ? AND id != ? AND state IN ('working', 'resting')",
        (now, role, keep),
    ).rowcount


def bind_native_id(conn: Connection, session_id: int, native_id: str) -> None:
    conn.execute("UPDATE sessions SET native_id = ? WHERE id = ?", (native_id, session_id))


def end_session(conn: Connection, session_id: int, *, now: int, reason: str) -> int:
    return conn.execute(
        "UPDATE sessions SET state = 'ended', ended_at = ?, end_reason = ? "
        "WHERE id = ? AND state IN ('working', 'resting')",
        (now, reason, session_id),
    ).rowcount


def park_session(conn: Connection, session_id: int, *, now: int, event: str) -> int:
    """A ``working`` session whose agent is gone (its executor died) becomes ``resting``:
    resumable, and its role no longer looks busy."""
    return conn.execute(
        "UPDATE sessions SET state = 'resting', last_event = ? WHERE id = ? AND state = 'working'",
        (event, session_id),
    ).rowcount


def record_session_failure(
    conn: Connection, session_id: int, *, failure: str, detail: str, now: int
) -> None:
    conn.execute(
        "UPDATE sessions SET failure = ?, failure_detail = ?, failure_at = ? WHERE id = ?",
        (failure, detail, now, session_id),
    )


def record_heartbeat(
    conn: Connection,
    *,
    role: str,
    now: int,
    native_id: str | None = None,
    state: str = "working",
    event: str | None = None,
    tool: str | None = None,
    activity: str | None = None,
    token: str | None = None,
    agent: str = "",
    check: Callable[[], object] = lambda: None,
) -> int:
    """Find or open the session this heartbeat belongs to and stamp it; returns its row id.

    With a native id, that session becomes (or stays) the role's current one; a new native
    id opens a new row and supersedes the older live sessions. Without one, the role's live
    session is stamped, or a new row opened when it has none. One statement when the role's
    current session is live with this native id (any, without one) and the role enabled;
    otherwise ``check`` (the session hook's role check) runs first.
    """
    stamp = (now, state, event, tool, activity, token)
    row = conn.execute(
        _STAMP + "id = " + _CURRENT_ID.format(role="?") + " AND state IN ('working', 'resting') "
        "AND (native_id = ? OR ? IS NULL) "
        "AND EXISTS (SELECT 1 FROM roles WHERE name = ? AND enabled = 1) RETURNING id",
        (*stamp, *(role,) * 4, native_id, native_id, role),
    ).fetchone()
    if row is not None:
        return int(row[0])
    check()
    known = _native_row(conn, role, native_id) if native_id else None
    current = None if known else _current_row(conn, role)
    if known is not None:  # resumed, ended, or the current one of a role not enabled
        session_id = int(known["id"])
        supersede_live_sessions(conn, role, keep=session_id, now=now)
    elif current and current["state"] in LIVE_STATES and not (native_id and current["native_id"]):
        session_id = int(current["id"])
        if native_id:
            bind_native_id(conn, session_id, native_id)
    else:
        session_id = insert_session(conn, role=role, native_id=native_id, agent=agent, now=now)
        supersede_live_sessions(conn, role, keep=session_id, now=now)
    conn.execute(_STAMP + "id = ?", (*stamp, session_id))
    return session_id


# The stamp: ``tool``, ``activity`` and ``token`` keep their old value when None.
_STAMP = (
    "UPDATE sessions SET last_heartbeat_at = ?, state = ?, ended_at = NULL, end_reason = NULL, "
    "heartbeats = heartbeats + 1, last_event = ?, last_tool = COALESCE(?, last_tool), "
    "activity = COALESCE(?, activity), wake_token = COALESCE(?, wake_token) WHERE "
)


# The role's live session, else its newest: two indexed lookups (sessions_role_live,
# sessions_role), never the role's history. The state list repeats the partial index's
# condition word for word: SQLite uses a partial index only for a condition it can match.
# ``role`` is bounded on both sides and ordered on, not ``= ?``: then PostgreSQL may walk the
# primary key backwards filtering on role, reading every newer session of every role.
_CURRENT_ID = (
    "COALESCE((SELECT id FROM sessions WHERE role >= {role} AND role <= {role} "
    "AND state IN ('working', 'resting') ORDER BY role DESC, id DESC LIMIT 1), "
    "(SELECT id FROM sessions WHERE role >= {role} AND role <= {role} "
    "ORDER BY role DESC, id DESC LIMIT 1))"
)


def current_session(conn: Connection, role: str) -> Session | None:
    """The role's live session if it has one, else its newest row.

    Usually the newest row; but a heartbeat naming an older native session (a resume)
    revives that row and supersedes the newer one, so "newest" alone would read offline.
    ``record_heartbeat`` keeps at most one live row per role.
    """
    return lazy_record(_current_row(conn, role), "roles", "Session")


def _current_row(conn: Connection, role: str) -> Row | None:
    row: Row | None = conn.execute(
        "SELECT * FROM sessions WHERE id = " + _CURRENT_ID.format(role="?"), (role,) * 4
    ).fetchone()
    return row


def current_sessions(conn: Connection) -> list[Session]:
    """``current_session`` of every role that has had a session, by role name.

    Two statements for any number of roles: each role's session id (two indexed lookups per
    role, driven by the roles table: the desk, not history), then those rows by primary key.
    As one join, PostgreSQL at a thousand roles hashes the ids and reads every session ever
    recorded to match them (docs/performance.md); a list of ids it reads through the key.
    """
    ids = [
        int(r[0])
        for r in conn.execute("SELECT " + _CURRENT_ID.format(role="r.name") + " FROM roles r")
        if r[0] is not None
    ]
    if not ids:
        return []
    rows = conn.execute(f"SELECT * FROM sessions WHERE id IN ({marks(ids)})", ids)
    found: list[Session] = lazy_records(rows, "roles", "Session")
    return sorted(found, key=lambda s: s.role)
