"""Roles and what serves them: the roles table, sessions, pauses, silences, handoffs
(store/roles.py, sessions.py, pauses.py, handoffs.py)."""

from __future__ import annotations

from typing import NamedTuple


class RoleRow(NamedTuple):
    """A row of the roles table (the desk file names roles; the table keeps every one seen)."""

    name: str
    title: str
    enabled: int
    in_desk: int
    created_at: int
    updated_at: int


class Session(NamedTuple):
    """One native agent session serving a role (a history row, not one per role)."""

    id: int
    role: str
    native_id: str | None
    agent: str
    state: str
    started_at: int
    ended_at: int | None
    end_reason: str | None
    last_heartbeat_at: int | None
    last_event: str | None
    last_tool: str | None
    activity: str | None
    wake_token: str | None
    heartbeats: int
    failure: str | None
    failure_detail: str | None
    failure_at: int | None


class Pause(NamedTuple):
    """A person's pause of the desk (``role`` None) or of one role."""

    id: int
    role: str | None
    reason: str
    started_at: int
    ended_at: int | None
    started_by: str | None
    ended_by: str | None


class Silence(NamedTuple):
    """A person holds a role's non-urgent pages until ``until_at`` (or until ended)."""

    id: int
    role: str
    reason: str
    started_at: int
    until_at: int
    ended_at: int | None
    started_by: str | None
    ended_by: str | None


class Handoff(NamedTuple):
    """A note a session left for the role's next one."""

    id: int
    role: str
    session_id: int | None
    note: str
    by: str
    created_at: int
