"""Capability routing: which enabled role takes work asked of a capability, and why.

Pure: the caller passes each candidate's presence and open load; nothing here reads the
clock or the database. The most available role wins: one that is online or idle first (its
session is alive), then the one with the fewest open items and tasks, ties by name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

CAPABILITY_PATTERN = r"[a-z][a-z0-9_.-]{0,31}"
_CAPABILITY = re.compile(CAPABILITY_PATTERN)
_ALIVE = frozenset({"online", "idle"})
"""A live session answers soonest; a suspect, dead or absent one needs a launch first."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """An enabled role that declares the capability, with what makes it more or less free."""

    role: str
    presence: str
    open_items: int
    open_tasks: int

    @property
    def load(self) -> int:
        return self.open_items + self.open_tasks

    def describe(self) -> str:
        return f"{self.role} {self.presence}, {self.load} open"


@dataclass(frozen=True, slots=True, kw_only=True)
class Routing:
    """Where work asked of ``capability`` goes (``role`` None: no enabled role has it)."""

    capability: str
    role: str | None
    why: str


def capability_problem(name: str) -> str | None:
    """Why ``name`` cannot be a capability (None when it can)."""
    if not _CAPABILITY.fullmatch(name):
        return f"must match {CAPABILITY_PATTERN}"
    return None


def rank(candidate: Candidate) -> tuple[int, int, str]:
    return (0 if candidate.presence in _ALIVE else 1, candidate.load, candidate.role)


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
    return Routing(capability=capability, role=best.role, why=why)
