"""The board: every role, the live wakes and the desk's gauges."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from deskd.service.desk.context import DeskContext
from deskd.service.ops.board import board
from deskd.service.paging.channels import routes
from deskd.web.console import console_of
from deskd.web.guard import Principal, now_of, reader
from deskd.web.render import page

router = APIRouter()


def gauges(ctx: DeskContext, data: Mapping[str, Any]) -> dict[str, Any]:
    """The numbers across the top of the board, each with whether it is bad news."""
    unwired = [r for r in ctx.desk.enabled_roles if not routes(ctx.settings, ctx.desk, r)]
    health = data["health"]
    live_by_role: dict[str, dict[str, Any]] = {}
    for attempt in data["attempts"]:
        current = live_by_role.get(attempt["role"])
        if current is None or attempt["level"] > current["level"]:
            live_by_role[attempt["role"]] = attempt
    return {
        "open_pages": len(data["pages"]),
        "unwired": unwired,
        "tick_age_s": health["last_tick_age_s"],
        "tick_stale": health["tick_stale"],
        "tick_mode": health["last_tick_mode"],
        "tick_message": health["message"],
        "paused": data["paused"],
        "desk_paused": any(p["role"] is None for p in data["paused"]),
        "badges": sum(1 for a in data["attempts"] if a["badge"]),
        "stale_hosts": [h["name"] for h in data["hosts"] if h["stale"]],
        "live_by_role": live_by_role,
    }


@router.get("/")
def board_page(request: Request, who: Principal = Depends(reader)) -> Response:
    with console_of(request).desk(now_of(request)) as ctx:
        data = board(ctx)
        return page(request, "board.html", ctx=ctx, board=data, gauges=gauges(ctx, data))
