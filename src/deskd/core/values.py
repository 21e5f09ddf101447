"""The closed vocabularies of docs/contract.md "Values", and their validators."""

from __future__ import annotations

import re

from deskd.errors import InvalidValue

PRIORITIES: tuple[str, ...] = ("low", "normal", "high", "urgent")
"""Item, task and page priorities, lowest first; the index is the stored rank."""

URGENT = PRIORITIES.index("urgent")

# docs/contract.md: item SLA defaults by priority, in seconds.
DEFAULT_SLA_S: dict[str, int] = {
    "urgent": 5 * 60,
    "high": 15 * 60,
    "normal": 30 * 60,
    "low": 4 * 3600,
}

RESERVED_SOURCES: tuple[str, ...] = ("system", "message", "meeting", "supervisor")
"""Item sources deskd writes itself; never accepted from `deskd inbox enqueue`."""

ROLE_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
SUPERVISOR = "supervisor"
"""The human overseer: not a role; acts only through the console, never launched."""
RESERVED_ROLE_NAMES: frozenset[str] = frozenset({SUPERVISOR})

SESSION_STATES: tuple[str, ...] = ("working", "resting")
"""What `deskd status set --state` accepts; `ended` comes only from `status end`."""


def priority_rank(name: str) -> int:
    """The stored rank of a priority name; refuses anything else with the valid choices."""
    try:
        return PRIORITIES.index(name)
    except ValueError:
        raise InvalidValue("priority", name, "choose one of: " + ", ".join(PRIORITIES)) from None


def priority_name(rank: int) -> str:
    return PRIORITIES[rank]


def role_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a role name, or None when it can."""
    if not ROLE_NAME.fullmatch(name):
        return "must match [a-z][a-z0-9_-]{0,31}"
    if name in RESERVED_ROLE_NAMES:
        return f"{name!r} is reserved (the supervisor is a person, not a role)"
    return None
