"""What the planner reads and writes: frozen records, no behaviour.

The snapshot loader (service/engine/snapshot.py) builds these from store records; the planner
(core/planner.py) turns a ``Snapshot`` into a ``Plan``; the tick (service/engine/tick.py)
records the plan. Times are Unix ms.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from deskd.core.meeting_wakes import MeetingWake as MeetingWake  # defined with its rules
from deskd.core.task_view import TaskView as TaskView  # the board builds it alone

if TYPE_CHECKING:
    from deskd.core.attempt_view import AttemptView as AttemptView
    from deskd.core.help_request import HelpRequest as HelpRequest
    from deskd.core.plan_steps import Closure as Closure
    from deskd.core.plan_steps import Note as Note
    from deskd.core.plan_steps import PageAction as PageAction
    from deskd.core.rollover_due import RolloverDue as RolloverDue

from deskd.core.values import RUNGS as RUNGS

LAUNCH_RUNGS: frozenset[str] = frozenset({"resume", "spawn"})
FAILURE_CLASSES: tuple[str, ...] = ("permanent", "transient", "usage_limit", "task")
EXECUTOR_DIED = "executor died"
"""The detail of a launch whose executor died (killed, OOM): the planner relaunches it once
within its rung, resuming the session it started."""
HOST_DOWN = "host_down"
"""The failure class of a launch given up because the host it was handed to stopped ticking:
like a permanent failure, its rung climbs at once."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Rung:
    """One step of the wake ladder and its SLA (None: the last rung waits for a person)."""

    name: str
    sla_s: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Policy:
    """The desk's wake settings the planner needs (from deskd.toml)."""

    ladder: tuple[Rung, ...]
    inbox_batch_s: int = 180
    max_launches_per_day: int = 48
    max_cost_per_day: float = 0.0
    recycle_base_s: int = 30 * 60
    recycle_cap_s: int = 8 * 3600
    prompt_cap_bytes: int = 32 * 1024

    def rung_names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.ladder)

    def sla_of(self, rung: str) -> int | None:
        for r in self.ladder:
            if r.name == rung:
                return r.sla_s
        return None

    def level_of(self, rung: str) -> int:
        return self.rung_names().index(rung)


@dataclass(frozen=True, slots=True, kw_only=True)
class RoleView:
    """A role as the planner reads it: presence, pause, limits, its resumable session."""

    name: str
    enabled: bool = True
    presence: str = "never"
    session_id: str | None = None
    """Native id of the role's resumable (not ended) session, if it has one."""
    launch_running: bool = False
    paused: bool = False
    pause_reason: str | None = None
    held_until: int | None = None
    """A usage limit holds launches until this instant."""
    launches_today: int = 0
    cost_today: float = 0.0
    prompt: str = ""
    dead_since: int | None = None
    """When its presence became ``dead`` (its heartbeat passed the suspect threshold)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ItemView:
    """An unread item, as demand sees it."""

    id: int
    role: str
    priority: int
    source: str
    title: str
    enqueued_at: int
    sla_due_at: int
    ref: str | None = None
    sender: str | None = None
    notified_at: int | None = None
    live: bool = True
    """False for items that must raise no demand (a paused or closed meeting's messages)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """Everything the planner reads, from one read transaction at one instant."""

    roles: tuple[RoleView, ...]
    items: tuple[ItemView, ...] = ()
    attempts: tuple[AttemptView, ...] = ()
    tasks: tuple[TaskView, ...] = ()
    meeting_wakes: tuple[MeetingWake, ...] = ()
    help_requests: tuple[HelpRequest, ...] = ()
    rollovers: tuple[RolloverDue, ...] = ()
    inactive_meetings: frozenset[int] = frozenset()
    """Meetings paused or closed: their wakes are withdrawn, not resolved (lessons 5–7)."""
    task_roles: Mapping[int, str] = field(default_factory=dict)
    """Every task's current assignee (open or closed), so a vanished wake knows why."""
    done_tasks: frozenset[int] = frozenset()
    open_page_keys: frozenset[str] = frozenset()
    desk_paused: bool = False
    notice_keys: frozenset[str] = frozenset()
    """Notices already paged (usage limits, daily caps): each is paged once."""
    day_start: int = 0
    """Local midnight of the desk's current day (daily caps count from here)."""
    broken: tuple[tuple[str, str], ...] = ()
    """(role, why) for roles whose rows could not be read: skipped this tick, others go on."""

    def role(self, name: str) -> RoleView | None:
        for r in self.roles:
            if r.name == name:
                return r
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class Demand:
    """A reason to wake a role right now, derived from rows each tick; never stored."""

    key: str
    kind: str
    role: str
    generation: int = 0
    item_ids: tuple[int, ...] = ()
    titles: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()
    urgent: bool = False
    since: int = 0
    sla_due_at: int | None = None
    floor: str | None = None
    """The lowest rung this demand may use (``notify`` for a person's help)."""
    cap: str | None = None
    """The highest rung this demand may reach (below the first rung that leaves the machine)."""
    task_ids: tuple[int, ...] = ()
    """Tasks the wake prompt lists (idle-task stalls are counted from these)."""
    lines: tuple[str, ...] = ()
    """What is owed, as the wake prompt and the page say it (lesson 17); the generator of
    each kind writes them. Empty for ``inbox``, whose lines come from its items."""
    ref: str | None = None
    """Where it lives (``meeting:12``, ``task:7``); shown as ``Ref:``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class NewAttempt:
    """An attempt the plan records: one rung tried for one demand."""

    key: str
    kind: str
    role: str
    rung: str
    level: int
    generation: int
    due_at: int | None
    item_ids: tuple[int, ...]
    reason: str
    ref: str | None = None
    task_ids: tuple[int, ...] = ()
    supersedes: int | None = None
    recycles: int = 0
    skipped: str | None = None
    """Why this rung cannot act for the role now (its SLA still runs)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LaunchAction:
    """One launch for a role this tick, carrying every launch-rung attempt it planned."""

    role: str
    rung: str
    keys: tuple[str, ...]
    """The attempts' keys, primary (highest rung) first."""
    session_id: str | None
    reasons: tuple[str, ...]
    prompt: str
    item_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """What one tick decided: demands, closures, new attempts, launches, pages, notes."""

    now: int
    demands: tuple[Demand, ...] = ()
    closures: tuple[Closure, ...] = ()
    attempts: tuple[NewAttempt, ...] = ()
    launches: tuple[LaunchAction, ...] = ()
    pages: tuple[PageAction, ...] = ()
    notes: tuple[Note, ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not (self.closures or self.attempts or self.launches or self.pages)


# The snapshot's records that only live rows make (an open attempt, a help request, a
# rollover), and the plan's steps on a live attempt (close it, page, say why it holds), live
# in modules of their own and are built with the first such row or step: a quiet desk's tick
# does not build them (~1 ms of CPU each). Named from here, each is imported on first use
# (PEP 562), like deskd.store.records.
_HOME = {
    "AttemptView": "deskd.core.attempt_view",
    "HelpRequest": "deskd.core.help_request",
    "RolloverDue": "deskd.core.rollover_due",
    "Closure": "deskd.core.plan_steps",
    "PageAction": "deskd.core.plan_steps",
    "Note": "deskd.core.plan_steps",
}


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
