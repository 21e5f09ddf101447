"""Rows of the roles table (store/roles.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class RoleRow:
    """A row of the roles table (the desk file names roles; the table keeps every one seen)."""

    name: str
    title: str
    enabled: int
    in_desk: int
    created_at: int
    updated_at: int
