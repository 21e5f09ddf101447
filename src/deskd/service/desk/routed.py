"""Why routed work went where it did: open items and tasks that capability routing placed.

Apart from service/desk/routing.py (which ranks roles for a capability): the board (``deskd
status``) and ``wake explain`` read this without loading the ranking.
"""

from __future__ import annotations

from typing import TypedDict

from deskd.service.desk.context import DeskContext
from deskd.store.routing import routed_open_tasks, routed_unread_items


class RoutedWork(TypedDict):
    """An open item or task capability routing placed, and why (the board's ``routed``)."""

    kind: str
    id: int
    role: str
    title: str
    capability: str
    why: str


def routed_work(ctx: DeskContext, *, role: str | None = None, limit: int = 50) -> list[RoutedWork]:
    """Open work that capability routing placed, newest first, each with why (the board)."""
    found: list[RoutedWork] = [
        {
            "kind": kind,
            "id": int(r.id),
            "role": str(r.role),
            "title": str(r.title),
            "capability": str(r.capability),
            "why": str(r.routed_why or ""),
        }
        for kind, rows in (
            ("item", routed_unread_items(ctx.conn, limit=limit)),
            ("task", routed_open_tasks(ctx.conn, limit=limit)),
        )
        for r in rows
        if role is None or r.role == role
    ]
    return found[:limit]


def explain_lines(ctx: DeskContext, role: str) -> list[str]:
    """The part of `wake explain --role` that says why routed work came to ``role``."""
    return [
        f"{w['kind']} {w['id']} came by capability — {w['why']}"
        for w in routed_work(ctx, role=role)
        if not w["why"].startswith("unroutable")
    ] + [
        f"item {w['id']} holds unroutable work for a person: {w['title']}"
        for w in routed_work(ctx, role=role)
        if w["why"].startswith("unroutable")
    ]
