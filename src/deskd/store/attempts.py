"""The wake ledger: one row per rung tried for one demand. Append-only history.

Lifecycle columns are filled once, by compare-and-set (``… WHERE col IS NULL`` or
``WHERE outcome = 'pending'``); exactly one live (``pending``) attempt per key is enforced
by the partial unique index ``attempts_live_key``. On the session hook's path: stdlib only,
records built by ``query.lazy_records``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from deskd.store.dialect import Sql
from deskd.store.query import lazy_record, lazy_records, select_where

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; mypy reads it as True
if TYPE_CHECKING:
    from deskd.core.records import Attempt
    from deskd.core.usage import Usage
    from deskd.store.dialect import Connection


def live_attempts(conn: Connection) -> list[Attempt]:
    rows = conn.execute("SELECT * FROM attempts WHERE outcome = 'pending' ORDER BY key")
    return lazy_records(rows, "deskd.core.records", "Attempt")


def get_attempt(conn: Connection, attempt_id: int) -> Attempt | None:
    row = conn.execute("SELECT * FROM attempts WHERE id = ?", (attempt_id,)).fetchone()
    return lazy_record(row, "deskd.core.records", "Attempt")


def insert_attempt(
    conn: Connection,
    *,
    key: str,
    kind: str,
    role: str,
    generation: int,
    rung: str,
    level: int,
    reason: str,
    ref: str | None,
    item_ids: Sequence[int],
    attempted_at: int,
    due_at: int | None,
    supersedes: int | None,
    recycles: int,
    skipped: str | None,
    task_ids: Sequence[int] = (),
) -> int:
    cur = conn.execute(
        "INSERT INTO attempts (key, kind, role, generation, rung, level, reason, ref, item_ids, "
        "attempted_at, due_at, supersedes, recycles, skipped, launch_status, launch_detail, "
        "task_ids) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (
            key,
            kind,
            role,
            generation,
            rung,
            level,
            reason,
            ref,
            json.dumps(list(item_ids)),
            attempted_at,
            due_at,
            supersedes,
            recycles,
            skipped,
            "skipped" if skipped else None,
            skipped,
            json.dumps(list(task_ids)),
        ),
    )
    return int(cur.fetchone()[0])


def close_attempt(conn: Connection, attempt_id: int, *, outcome: str, reason: str, now: int) -> int:
    """Compare-and-set ``pending → outcome``; returns 1 when this call closed it."""
    return conn.execute(
        "UPDATE attempts SET outcome = ?, outcome_reason = ?, resolved_at = ? "
        "WHERE id = ? AND outcome = 'pending'",
        (outcome, reason, now, attempt_id),
    ).rowcount


def plan_launch(
    conn: Connection, attempt_id: int, *, token: str, prompt: str, session_id: str | None, now: int
) -> int:
    """The primary attempt of a launch: ``planned``, with its wake token and prompt."""
    return conn.execute(
        "UPDATE attempts SET launch_status = 'planned', wake_token = ?, prompt = ?, "
        "session_id = ?, planned_at = ? WHERE id = ? AND launch_status IS NULL",
        (token, prompt, session_id, now, attempt_id),
    ).rowcount


def ride_along(conn: Connection, attempt_id: int, *, primary_id: int, now: int) -> int:
    """An attempt carried by another attempt's launch: it shares its status and landing."""
    return conn.execute(
        "UPDATE attempts SET launch_status = 'planned', primary_id = ?, planned_at = ? "
        "WHERE id = ? AND launch_status IS NULL",
        (primary_id, now, attempt_id),
    ).rowcount


def in_flight_roles(conn: Connection) -> set[str]:
    rows = conn.execute(
        "SELECT DISTINCT role FROM attempts WHERE launch_status IN ('planned', 'running')"
    ).fetchall()
    return {str(r[0]) for r in rows}


def launch_totals_since(conn: Connection, since: int) -> dict[str, tuple[int, float]]:
    """Per role: agent CLI runs since ``since`` (primaries only; each in-rung retry is a run,
    a launch claimed but not yet counted is one) and their cost."""
    # Role by role (SQLite's CROSS JOIN keeps roles outside; PostgreSQL reads it as a plain
    # join), each a range of attempts_launched (role, launched_at): today's launches only.
    # Without the roles loop SQLite reads the whole index, i.e. every launch ever
    # (docs/performance.md).
    rows = conn.execute(
        "SELECT a.role, "
        "COALESCE(SUM(CASE WHEN a.launch_runs > 1 THEN a.launch_runs ELSE 1 END), 0), "
        "COALESCE(SUM(a.cost_usd), 0) FROM roles r CROSS JOIN attempts a "
        "WHERE a.role = r.name AND a.launched_at >= ? AND a.primary_id IS NULL "
        "GROUP BY a.role",
        (since,),
    ).fetchall()
    return {str(r[0]): (int(r[1]), float(r[2])) for r in rows}


def holds_after(conn: Connection, now: int) -> dict[str, int]:
    """Per role: the latest usage-limit reset still in the future."""
    # Role by role over attempts_hold (role, hold_until): only holds still ahead are read.
    rows = conn.execute(
        "SELECT a.role, MAX(a.hold_until) FROM roles r CROSS JOIN attempts a "
        "WHERE a.role = r.name AND a.hold_until > ? GROUP BY a.role",
        (now,),
    ).fetchall()
    return {str(r[0]): int(r[1]) for r in rows}


def list_attempts(
    conn: Connection, *, role: str | None, open_only: bool, limit: int, **match: str
) -> list[Attempt]:
    # ``match`` (rung=, outcome=, kind=: names from code) filters before the limit. Open ones
    # come through the partial index of pending attempts; ``+id`` and ``role || ''`` (no
    # index serves them) keep SQLite from walking the whole table (or the role's history) in
    # id order instead. Both backends read them; PostgreSQL has no unary ``+`` on text, hence
    # the concatenation for the role.
    rows = select_where(
        conn,
        "SELECT * FROM attempts",
        ("role || '' = ?" if open_only else "role = ?", role),
        "outcome = 'pending'" if open_only else None,
        *((f"{column} = ?", match[column]) for column in sorted(match)),
        order="+id DESC" if open_only else "id DESC",
        limit=limit,
    )
    return lazy_records(rows, "deskd.core.records", "Attempt")


def attempts_for_key(conn: Connection, key: str, *, limit: int = 50) -> list[Attempt]:
    rows = conn.execute(
        "SELECT * FROM attempts WHERE key = ? ORDER BY id DESC LIMIT ?", (key, limit)
    )
    return lazy_records(rows, "deskd.core.records", "Attempt")


def ack_attempt(conn: Connection, attempt_id: int, *, until: int, note: str, now: int) -> int:
    return conn.execute(
        "UPDATE attempts SET acked_at = ?, ack_until = ?, ack_note = ? "
        "WHERE id = ? AND outcome = 'pending'",
        (now, until, note, attempt_id),
    ).rowcount


def covered_item_ids(conn: Connection) -> set[int]:
    """Items that a live attempt covers (for the ledger's ``escalated`` state)."""
    rows = conn.execute(
        "SELECT item_ids FROM attempts WHERE outcome = 'pending' AND kind = 'inbox'"
    ).fetchall()
    return {int(i) for r in rows for i in json.loads(r[0])}


# -- the executor's lifecycle stamps (each filled once, by compare-and-set) ----------------


def claim_launch(conn: Connection, attempt_id: int, *, now: int) -> int:
    """``planned → running`` for a launch whose attempt is still live; 1 when this call won."""
    cur = conn.execute(
        "UPDATE attempts SET launch_status = 'running', launched_at = ? "
        "WHERE id = ? AND launch_status = 'planned' AND outcome = 'pending' AND primary_id IS NULL",
        (now, attempt_id),
    )
    if cur.rowcount:
        conn.execute(
            "UPDATE attempts SET launch_status = 'running', launched_at = ? "
            "WHERE primary_id = ? AND launch_status = 'planned'",
            (now, attempt_id),
        )
    return cur.rowcount


def finish_launch(
    conn: Connection,
    attempt_id: int,
    *,
    status: str,
    now: int,
    exit_code: int | None,
    failure_class: str | None,
    detail: str | None,
    cost_usd: float | None,
    hold_until: int | None,
) -> int:
    """``running → status`` on the launch's primary and its ride-alongs."""
    return conn.execute(
        "UPDATE attempts SET launch_status = ?, finished_at = ?, exit_code = ?, failure_class = ?, "
        "failure_detail = ?, launch_detail = ?, cost_usd = CASE WHEN id = ? THEN ? ELSE cost_usd END, "
        "hold_until = ? "
        "WHERE (id = ? OR primary_id = ?) AND launch_status = 'running'",
        (
            status,
            now,
            exit_code,
            failure_class,
            detail,
            detail,
            attempt_id,
            cost_usd,
            hold_until,
            attempt_id,
            attempt_id,
        ),
    ).rowcount


def record_usage(conn: Connection, attempt_id: int, usage: Usage) -> int:
    """What the launch's CLI reported using, on its primary attempt (None: not reported)."""
    return conn.execute(
        "UPDATE attempts SET input_tokens = ?, output_tokens = ?, cache_read_tokens = ?, "
        "cache_write_tokens = ?, model = ? WHERE id = ?",
        (*usage, attempt_id),
    ).rowcount


def skip_planned_launch(
    conn: Connection, attempt_id: int, *, reason: str, now: int, failure_class: str | None = None
) -> int:
    """Mark a still-``planned`` launch skipped, with ``reason``.

    The executor could not launch (role lock held: the attempt stays live, its SLA runs), the
    attempt closed before its launch started (it will never run), or its host stopped ticking
    (``failure_class`` ``host_down``: the planner climbs its rung at once).
    """
    return conn.execute(
        "UPDATE attempts SET launch_status = 'skipped', launch_detail = ?, finished_at = ?, "
        "failure_class = COALESCE(?, failure_class) "
        "WHERE (id = ? OR primary_id = ?) AND launch_status = 'planned'",
        (reason, now, failure_class, attempt_id, attempt_id),
    ).rowcount


def count_launch_run(conn: Connection, attempt_id: int) -> int:
    """One more run of the agent CLI for this launch (each counts against the daily cap)."""
    return conn.execute(
        "UPDATE attempts SET launch_runs = launch_runs + 1 WHERE id = ?", (attempt_id,)
    ).rowcount


def record_launch_session(conn: Connection, attempt_id: int, *, session_id: str) -> int:
    return conn.execute(
        "UPDATE attempts SET session_id = ? WHERE id = ? OR primary_id = ?",
        (session_id, attempt_id, attempt_id),
    ).rowcount


def land(conn: Connection, attempt_id: int, *, now: int) -> int:
    """Stamp ``landed_at`` on the launch's attempts, once."""
    return conn.execute(
        "UPDATE attempts SET landed_at = ? WHERE (id = ? OR primary_id = ?) AND landed_at IS NULL",
        (now, attempt_id, attempt_id),
    ).rowcount


def launch_item_ids(conn: Connection, attempt_id: int) -> list[int]:
    """The items the launch's prompt listed (primary and ride-alongs)."""
    rows = conn.execute(
        "SELECT item_ids FROM attempts WHERE id = ? OR primary_id = ?", (attempt_id, attempt_id)
    ).fetchall()
    return [int(i) for r in rows for i in json.loads(r[0])]


def stale_planned(conn: Connection, *, before: int) -> list[Attempt]:
    """Primaries still ``planned`` since before ``before``: their executor never started."""
    rows = conn.execute(
        # The IN repeats the partial index's condition so SQLite uses it, not a scan.
        "SELECT * FROM attempts WHERE launch_status IN ('planned', 'running') "
        "AND launch_status = 'planned' AND primary_id IS NULL "
        "AND outcome = 'pending' AND planned_at < ?",
        (before,),
    )
    return lazy_records(rows, "deskd.core.records", "Attempt")


def running_launches(conn: Connection) -> list[Attempt]:
    rows = conn.execute(
        "SELECT * FROM attempts WHERE launch_status IN ('planned', 'running') "
        "AND launch_status = 'running' AND primary_id IS NULL"
    )
    return lazy_records(rows, "deskd.core.records", "Attempt")


def land_with_items(conn: Connection, attempt_id: int, *, now: int, session: str | None) -> bool:
    """Land a launch once, and mark the items its prompt listed notified and seen."""
    if not land(conn, attempt_id, now=now):
        return False
    from deskd.store.items import mark_shown

    mark_shown(conn, launch_item_ids(conn, attempt_id), session=session, now=now)
    return True


def land_by_token(
    conn: Connection, token: str, *, role: str, now: int, session: str | None
) -> str | None:
    """The session hook saw a model turn carrying this wake token: land its launch.

    The token lands only the attempt it was issued for, presented by that attempt's role
    and, once the launch recorded its native session, from that session. Returns why it
    did not land (None when it landed or had landed already).
    """
    row = conn.execute(
        "SELECT id, role, session_id FROM attempts WHERE wake_token = ?", (token,)
    ).fetchone()
    if row is None:
        return "unknown wake token"
    attempt_id, owner, recorded = int(row[0]), str(row[1]), row[2]
    if owner != role:
        return f"wake token of attempt {attempt_id} was issued to role {owner!r}, not {role!r}"
    if recorded and session and str(recorded) != session:
        return f"wake token of attempt {attempt_id} belongs to session {recorded}, not {session}"
    land_with_items(conn, attempt_id, now=now, session=session)
    return None


def note_hook_failure(conn: Connection, token: str, *, failure: str, now: int) -> int:
    """A StopFailure the session hook saw, kept on the launch for the executor's verdict."""
    return conn.execute(
        "UPDATE attempts SET failure_detail = COALESCE(failure_detail, ?) WHERE wake_token = ?",
        (f"StopFailure: {failure}", token),
    ).rowcount


# --- the launch rows the operator verbs read (`deskd wait`) ---------------------------------------
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
    row = conn.execute(_NEWEST_LAUNCH, (role,)).fetchone()
    return lazy_record(row, "deskd.core.records", "Attempt")


def launches_in_flight(conn: Connection, role: str) -> int:
    row = conn.execute(
        "SELECT COUNT(*) FROM attempts WHERE role = ? AND launch_status IN ('planned', 'running')",
        (role,),
    ).fetchone()
    return int(row[0])
