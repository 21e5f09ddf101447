"""Session rows (store/sessions.py, handoffs)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Session:
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
