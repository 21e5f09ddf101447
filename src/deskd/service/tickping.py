"""``DESKD_TICK_PING_URL``: a dead-man's switch the tick calls (the pager issue fills this)."""

from __future__ import annotations

from deskd.service.context import DeskContext


def ping(ctx: DeskContext, phase: str, reason: str = "") -> None:
    """``phase`` is ``start``, ``success`` or ``fail``; a failed ping never fails the tick."""
    return None
