"""Capability routing: which enabled role takes work asked of a capability, and why.

Pure: the caller passes each candidate's presence, open load and what blocks it; nothing
here reads the clock or the database. The most available role wins: one that can work now
first (not paused, its desk not paused, not bound to a host that stopped ticking), then one
that is online or idle (its session is alive), then the one with the fewest open items and
tasks, ties by name. A blocked role is chosen only when no capable role can work: the work
waits for it rather than being lost.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

CAPABILITY_PATTERN = r"[a-z][a-z0-9_.-]{0,31}"
_CAPABILITY = re.compile(CAPABILITY_PATTERN)
_ALIVE = frozenset({"online", "idle"})
"""A live session answers soonest; a suspect, dead or absent one needs a launch first."""


class Candidate(NamedTuple):
    """An enabled role that declares the capability, with what makes it more or less free."""

    role: str
    presence: str
    open_items: int
    open_tasks: int
    blocked: str | None = None
    """Why it cannot work now (``paused: …``, ``host gpu is not ticking``), or None."""

    @property
    def load(self) -> int:
        return self.open_items + self.open_tasks

    def describe(self) -> str:
        said = f"{self.role} {self.presence}, {self.load} open"
        return f"{said}, {self.blocked}" if self.blocked else said


class Routing(NamedTuple):
    """Where work asked of ``capability`` goes (``role`` None: no enabled role has it)."""

    capability: str
    role: str | None
    why: str
    passed_over: tuple[tuple[str, str], ...] = ()
    """(role, why) of each other capable role that cannot work now."""


def capability_problem(name: str) -> str | None:
    """Why ``name`` cannot be a capability (None when it can)."""
    return None if _CAPABILITY.fullmatch(name) else f"must match {CAPABILITY_PATTERN}"


def rank(candidate: Candidate) -> tuple[int, int, int, str]:
    return (
        1 if candidate.blocked else 0,
        0 if candidate.presence in _ALIVE else 1,
        candidate.load,
        candidate.role,
    )


def choose(capability: str, candidates: Sequence[Candidate]) -> Routing:
    """The most available candidate, and a sentence saying why it beat the others."""
    if not candidates:
        return Routing(
            capability=capability,
            role=None,
            why=f"unroutable: {capability} (no enabled role declares it)",
        )
    ordered = sorted(candidates, key=rank)
    best, rest = ordered[0], ordered[1:]
    why = f"{capability}: {best.describe()}"
    if rest:
        why += " (over " + "; ".join(c.describe() for c in rest) + ")"
    else:
        why += " (the only role with it)"
    passed = tuple((c.role, c.blocked) for c in rest if c.blocked)
    return Routing(capability=capability, role=best.role, why=why, passed_over=passed)
