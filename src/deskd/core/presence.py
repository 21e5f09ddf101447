"""Presence, derived at read time from a role's latest session row (docs/architecture.md,
"Presence")."""

from __future__ import annotations

PRESENCES: tuple[str, ...] = ("online", "suspect", "idle", "dead", "offline", "never")
BUSY: frozenset[str] = frozenset({"online", "suspect"})

DEFAULT_ONLINE_S = 120
DEFAULT_SUSPECT_S = 600


def presence_of(
    state: str | None,
    last_heartbeat_at: int | None,
    *,
    now: int,
    online_s: int = DEFAULT_ONLINE_S,
    suspect_s: int = DEFAULT_SUSPECT_S,
) -> str:
    """The presence of a role whose latest session is (``state``, ``last_heartbeat_at``).

    ``state`` is the session row's state (``working``, ``resting``, ``ended``,
    ``superseded``) or None when the role never had a session. Resting is not dying: a
    session that ended its turn stays ``idle`` however old its heartbeat.
    """
    if state is None or last_heartbeat_at is None:
        return "never"
    if state in ("ended", "superseded"):
        return "offline"
    if state == "resting":
        return "idle"
    age_ms = now - last_heartbeat_at
    if age_ms < online_s * 1000:
        return "online"
    if age_ms < suspect_s * 1000:
        return "suspect"
    return "dead"


def is_busy(presence: str) -> bool:
    return presence in BUSY
