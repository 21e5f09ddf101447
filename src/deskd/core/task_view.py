"""``TaskView``: an open task as demand sees it, in a module of its own.

The planner's ``Snapshot`` (core/records.py) holds these, and the board (``deskd status``)
builds them for its stalled tasks. Alone here, so the board builds this one record without
building the planner's other records, and ``task update`` (which imports core/tasks.py)
builds none of them: a frozen dataclass costs about 1 ms of CPU to build
(docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskView:
    """An open task (pending, in progress or blocked), as demand sees it. Owned by the tasks
    rules (core/tasks.py); ``stalled`` is derived from the attempt ledger by the loader."""

    id: int
    role: str
    title: str
    status: str
    priority: int
    updated_at: int
    due_at: int | None = None
    blocked_on: str | None = None
    stalled: bool = False
    idle_wakes: int = 0
