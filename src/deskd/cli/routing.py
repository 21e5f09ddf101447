"""What ``--for`` / ``--capability`` commands share: the either-or check and the sentence."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deskd.errors import NoTarget, TargetConflict


def check_target(role: str | None, capability: str | None) -> None:
    """Exactly one of ``--for ROLE`` and ``--capability NAME``."""
    if role is not None and capability is not None:
        raise TargetConflict()
    if role is None and capability is None:
        raise NoTarget()


def routed_sentence(what: str, out: Mapping[str, Any]) -> str:
    """One line for a routed item or task (or the page that says it could not be routed)."""
    if out.get("unroutable"):
        return (
            f"unroutable: {out['unroutable']} — no enabled role has it; a person is paged "
            f"(help item {out['help_item_id'] if 'help_item_id' in out else out['id']}, "
            f"attempt {out['attempt_id']})"
        )
    verb = "coalesced into" if out.get("deduped") else "queued as"
    if what == "task":
        verb = "added as"
    return f"{verb} {what} {out['id']} for {out['role']} — {out['routed']}"
