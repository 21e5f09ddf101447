"""What happens after a launch for the session lifecycle (the tasks/sessions issue fills it):
a ``rollover`` launch checks the SESSION_DONE sentinel and the stored hand-off, then ends
the session."""

from __future__ import annotations

from typing import Any

from deskd.service.context import DeskContext


def after_launch(ctx: DeskContext, attempt: Any, *, output_tail: str, landed: bool) -> None:
    """Called by the executor when a launch has finished, with the last stdout lines."""
    return None
