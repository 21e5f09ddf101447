"""Presence: declare it (``status set``), end it (``status end``), beat by hand (``heartbeat``),
and read every role's presence for ``deskd roles`` and the board; and a host's, overdue once
its executing ticks stop.

Presence is never stored: ``core.sessions.presence_of`` derives it at read time from each
role's current session row — its live one, else its newest (docs/architecture.md,
"Presence") — so a dead agent needs nobody to notice it: its heartbeat simply ages. The read
functions here never open a write transaction.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from deskd.adapters.agents import session_id_problem
from deskd.core.sessions import presence_of
from deskd.core.timeparse import iso_utc
from deskd.core.values import SESSION_STATES, check_text
from deskd.errors import InvalidValue, NoLiveSession
from deskd.service.desk.context import DeskContext
from deskd.store import items as item_rows
from deskd.store import sessions as session_rows
from deskd.store.records import JSON
from deskd.store.roles import list_roles

if TYPE_CHECKING:
    from deskd.config.settings import Settings
    from deskd.store.records.roles import Session

END_REASON = "ended by status end"


def derive(ctx: DeskContext, session: Session | None) -> str:
    """The presence of a role whose newest session row is ``session`` (None: it never had one)."""
    return presence_of(
        None if session is None else session.state,
        None if session is None else session.last_heartbeat_at,
        now=ctx.now,
        online_s=ctx.desk.presence.online,
        suspect_s=ctx.desk.presence.suspect,
    )


def check_state(state: str) -> str:
    """``working`` or ``resting``; anything else is a refusal naming both (not a usage error)."""
    if state not in SESSION_STATES:
        raise InvalidValue("state", state, "choose one of: " + ", ".join(SESSION_STATES))
    return state


def check_session_id(ctx: DeskContext, role: str, native_id: str | None) -> None:
    """Refuse a session id the role's agent CLI could not have printed (also an unknown role).

    The id is passed back to that CLI on the next resume: ``--session-id=--some-flag``
    must be refused here, not become a flag there."""
    check_text("--session-id", native_id)
    ctx.desk.role(role)
    if not native_id:
        return
    kind = ctx.desk.agent_for(role).kind
    problem = session_id_problem(kind, native_id)
    if problem is not None:
        raise InvalidValue("--session-id (or DESKD_SESSION_ID)", native_id[:60], problem)


def set_status(
    ctx: DeskContext,
    role: str,
    *,
    state: str = "working",
    activity: str | None = None,
    native_id: str | None = None,
) -> JSON:
    """Record a heartbeat now with the declared state; returns the role's presence after it."""
    check_state(state)
    check_text("--activity", activity)
    return _beat(ctx, role, native_id, state=state, event="status set", activity=activity)


def heartbeat(
    ctx: DeskContext, role: str, *, native_id: str | None = None, token: str | None = None
) -> JSON:
    """What the session hook does on a tool call, by hand: the role's session is working now."""
    return _beat(ctx, role, native_id, state="working", event="heartbeat", token=token or None)


def end_status(ctx: DeskContext, role: str, *, by: str) -> JSON:
    """End the role's live session (not resumable); refuses when it has none."""
    ctx.desk.role(role)
    with ctx.write(role) as conn:
        current = session_rows.current_session(conn, role)
        if current is None or current.state not in session_rows.LIVE_STATES:
            raise NoLiveSession(role, derive(ctx, current))
        session_rows.end_session(conn, current.id, now=ctx.now, reason=END_REASON)
        detail = {"reason": END_REASON, "native_id": current.native_id}
        ctx.event(
            conn, "session.ended", f"session:{current.id}", role=role, actor=by, detail=detail
        )
    return {**_after_write(ctx, role, current.id), "session_id": current.native_id}


def _beat(ctx: DeskContext, role: str, native_id: str | None, **beat: Any) -> JSON:
    """Record a heartbeat of ``role`` (``beat``: its state, event, activity or token)."""
    check_session_id(ctx, role, native_id)
    with ctx.write(role) as conn:
        session_id = session_rows.record_heartbeat(
            conn, role=role, now=ctx.now, native_id=native_id or None, **beat
        )
    return _after_write(ctx, role, session_id)


def _after_write(ctx: DeskContext, role: str, session_id: int) -> JSON:
    """What ``status set``, ``status end`` and ``heartbeat`` answer: the role's presence after
    the write, and the native id of the session the command touched."""
    row = session_rows.current_session(ctx.conn, role)
    native = row.native_id if row is not None and row.id == session_id else None
    return {"role": role, "presence": derive(ctx, row), "session_id": native}


def role_presences(ctx: DeskContext) -> list[JSON]:
    """One entry per role as ``deskd roles`` and the board show it — the desk's, then any the
    desk file dropped (shown disabled).

    Reads only: the roles table may lag the desk file until the next write, so the desk file
    is the source of names, titles and ``enabled``; the table adds roles it no longer names.
    """
    conn = ctx.conn
    sessions = {r.role: r for r in session_rows.current_sessions(conn)}
    unread = item_rows.count_unread_by_role(conn)
    overdue = Counter(item.role for item in item_rows.overdue_unread(conn, now=ctx.now))
    roles = [(r.name, r.title, r.enabled) for r in ctx.desk.roles.values()]
    roles += [
        (str(r.name), str(r.title), False) for r in list_roles(conn) if r.name not in ctx.desk.roles
    ]
    return [
        _view(ctx, name, title, enabled, sessions.get(name), unread, overdue)
        for name, title, enabled in sorted(roles)
    ]


def _view(
    ctx: DeskContext,
    name: str,
    title: str,
    enabled: bool,
    session: Session | None,
    unread: dict[str, int],
    overdue: dict[str, int],
) -> JSON:
    beat = None if session is None else session.last_heartbeat_at
    return {
        "role": name,
        "title": title,
        "enabled": enabled,
        "presence": derive(ctx, session),
        "state": None if session is None else session.state,
        "session_id": None if session is None else session.native_id,
        "activity": None if session is None else session.activity,
        "last_tool": None if session is None else session.last_tool,
        "last_heartbeat": iso_utc(beat),
        "heartbeat_age_s": None if beat is None else max(0, (ctx.now - beat) // 1000),
        "unread": unread.get(name, 0),
        "overdue": overdue.get(name, 0),
    }


# -- hosts: when one has stopped ticking ------------------------------------------------------

DEFAULT_OVERDUE_S = 180
"""A tick runs every minute; three missed minutes is a stopped schedule, not a slow tick."""


def overdue_after_s(settings: Settings) -> int:
    """Seconds without an executing tick after which a host is overdue: ``DESKD_TICK_OVERDUE``,
    the one threshold every reader of host ticks asks here (exit 2 when the setting is not a
    duration of at least a minute)."""
    text = (settings.tick_overdue or "").strip()
    if not text:
        return DEFAULT_OVERDUE_S
    from deskd.core.timeparse import parse_duration

    seconds = parse_duration(text, what="DESKD_TICK_OVERDUE")
    if seconds < 60:
        raise InvalidValue("DESKD_TICK_OVERDUE", text, "a duration of at least 1m, like 3m or 10m")
    return seconds


def is_overdue(last_tick_at: int | None, *, now: int, after_s: int) -> bool:
    """Whether a host whose last executing tick was at ``last_tick_at`` (ms) is overdue: no
    tick for ``after_s`` or longer (a never-ticked host is)."""
    return last_tick_at is None or now - last_tick_at >= after_s * 1000
