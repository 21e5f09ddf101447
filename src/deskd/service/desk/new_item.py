"""``NewItem``: an item about to be written, in a module of its own.

Commands that write an item (``inbox enqueue``, ``send``, ``meeting send``, a hook firing)
build it; the many that only read the inbox module (``inbox list``, ``status``, the tick)
do not pay for it (a frozen dataclass costs ~1 ms of CPU to build, docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class NewItem:
    """An item to enqueue for ``role``, before its priority, SLA and text are checked."""

    role: str
    source: str
    title: str
    body: str = ""
    ref: str | None = None
    priority: str = "normal"
    dedup_key: str | None = None
    sla: str | int | None = None
    sender: str | None = None
    message_id: str | None = None
