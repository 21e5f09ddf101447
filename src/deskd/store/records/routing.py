"""What deskd routed by capability (store/routing.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Routed:
    """An item or task deskd routed to a role by capability, and why that role."""

    id: int
    role: str
    title: str
    capability: str
    routed_why: str | None
