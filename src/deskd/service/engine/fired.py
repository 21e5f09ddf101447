"""``Fired``: what one due hook did on a tick (or would do, on a dry run).

In a module of its own, built with the first due hook: a tick that finds none does not
build it (a frozen dataclass costs ~1 ms of CPU to build, docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from deskd.core.timeparse import iso_utc


@dataclass(frozen=True, slots=True, kw_only=True)
class Fired:
    """One due hook: the item it enqueued (or would), or why it could not fire."""

    hook_id: int
    owner: str
    kind: str
    title: str
    fire_at: int | None
    missed: int
    item_id: int | None = None
    error: str | None = None
    would: bool = False
    priority: str = "normal"

    def to_json(self) -> dict[str, Any]:
        return {
            "hook_id": self.hook_id,
            "owner": self.owner,
            "kind": self.kind,
            "title": self.title,
            "fire_at": iso_utc(self.fire_at),
            "missed": self.missed,
            "item_id": self.item_id,
            "error": self.error,
            "would": "run"
            if self.would and self.kind == "probe"
            else ("fire" if self.would else None),
        }
