"""What the planner reads and writes: records (``typing.NamedTuple``), no behaviour.

The stored ones (``Attempt``, ``ItemView``, ``HelpRequest``) are the store's records of their
rows; the snapshot loader (service/engine/snapshot.py) gathers the rest; the planner
(core/planner.py) turns a ``Snapshot`` into a ``Plan``; the tick (service/engine/tick.py)
records the plan. Times are Unix ms.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from deskd.core.meeting_wakes import MeetingWake as MeetingWake  # defined with its rules
from deskd.core.tasks import Task as Task  # defined with its rules

LAUNCH_FAILED: frozenset[str] = frozenset({"failed", "timed_out"})
"""The launch statuses of a launch that ended without a result."""
EXECUTOR_DIED = "executor died"
"""The detail of a launch whose executor died (killed, OOM): the planner relaunches it once
within its rung, resuming the session it started."""
STUCK = "stuck"
"""The detail of a launch deskd stopped because its session went silent (service/engine/
stuck.py): relaunched once within its rung like a dead executor's."""
HOST_DOWN = "host_down"
"""The failure class of a launch given up because the host it was handed to stopped ticking:
like a permanent failure, its rung climbs at once."""


class Rung(NamedTuple):
    """One step of the wake ladder and its SLA (None: the last rung waits for a person)."""

    name: str
    sla_s: int | None


class Policy(NamedTuple):
    """The desk's wake settings the planner needs (from deskd.toml)."""

    ladder: tuple[Rung, ...]
    inbox_batch_s: int = 180
    max_launches_per_day: int = 48
    max_cost_per_day: float = 0.0
    recycle_base_s: int = 30 * 60
    recycle_cap_s: int = 8 * 3600
    prompt_cap_bytes: int = 32 * 1024
    max_running: int = 0
    max_running_per_host: int = 0

    def rung_names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.ladder)

    def sla_of(self, rung: str) -> int | None:
        return next((r.sla_s for r in self.ladder if r.name == rung), None)

    def level_of(self, rung: str) -> int:
        return self.rung_names().index(rung)


class BudgetUse(NamedTuple):
    """One budget (``desk/day``, ``researcher/window``) and what was used of it."""

    name: str
    role: str | None
    """The role it governs; None for the whole desk."""
    unit: str
    """``tokens`` or ``usd``."""
    limit: float
    reserve: float
    """A fraction of ``limit`` on top of it that only urgent work may use."""
    used: float
    running: float = 0.0
    """The expected use of launches running now (their use is counted when they finish)."""
    period_start: int = 0
    frees_at: int | None = None
    """When the period turns (or the window's oldest use leaves it)."""
    frees: str = ""
    """``frees_at`` in the desk's words (``00:00 America/New_York``)."""

    def text(self, used: float) -> str:
        """``used 96,400 of 100,000 tokens`` (or dollars)."""
        if self.unit == "usd":
            return f"used ${used:,.2f} of ${self.limit:,.2f}"
        return f"used {used:,.0f} of {self.limit:,.0f} tokens"


class RoleView(NamedTuple):
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
    account: str | None = None
    """The account its CLI runs on: a usage limit holds every role on it."""
    host: str = ""
    """The host its launches run on (the one it is bound to, else the planning host)."""
    expected_tokens: float = 0.0
    expected_usd: float = 0.0
    """What one launch of it is expected to use (budgets weigh it before launching)."""


class ItemView(NamedTuple):
    """An unread item, as demand sees it: the columns the snapshot reads (the full row is
    store/records ``Item``, which the session hook builds without importing ``core/``)."""

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


class Attempt(NamedTuple):
    """One row of the wake ledger: one rung tried for one demand. The planner reads the live
    (``pending``) ones; the store fills every field its query selected."""

    id: int
    key: str
    kind: str
    role: str
    rung: str
    attempted_at: int
    generation: int = 0
    level: int = 0
    reason: str = ""
    """What it was for, as recorded (``1 unread item (urgent)``); a relaunch says so."""
    ref: str | None = None
    item_ids: tuple[int, ...] = ()
    task_ids: tuple[int, ...] = ()
    due_at: int | None = None
    outcome: str = "pending"
    outcome_reason: str | None = None
    resolved_at: int | None = None
    supersedes: int | None = None
    recycles: int = 0
    skipped: str | None = None
    """Why its rung could not act when it was recorded (``paused: …`` while paused)."""
    launch_status: str | None = None
    launch_detail: str | None = None
    """How its launch ended, in a line (``agent executable 'claude' not found``), or why it
    was skipped (``host b is not ticking``)."""
    primary_id: int | None = None
    wake_token: str | None = None
    prompt: str | None = None
    session_id: str | None = None
    planned_at: int | None = None
    launched_at: int | None = None
    landed_at: int | None = None
    finished_at: int | None = None
    exit_code: int | None = None
    failure_class: str | None = None
    failure_detail: str | None = None
    hold_until: int | None = None
    cost_usd: float | None = None
    acked_at: int | None = None
    ack_until: int | None = None
    ack_note: str | None = None
    launch_runs: int = 0
    """Runs of the agent CLI for this launch (in-rung retries included)."""
    launch_host: str | None = None
    """The host whose executor runs it (None: any, a desk of one host)."""
    unreadable: str | None = None
    """Why a stored id list could not be read (store/records ``record_of``): the planner
    skips the role's wakes and says so, the board still shows the row."""


class HelpRequest(NamedTuple):
    """An agent asked a person (`deskd page --from R`): its item, until acked."""

    item_id: int
    role: str
    title: str
    enqueued_at: int
    body: str = ""
    capability: str | None = None
    """Set when the request is work no enabled role could take (``--capability``)."""
    priority: int = 0
    """Its item's: ``high`` for an agent's request, the work's own for unroutable work."""


class RolloverDue(NamedTuple):
    """A session from an earlier desk day that must wind down (core/sessions rules)."""

    role: str
    session_key: str
    started_at: int
    tries: int = 0


class Snapshot(NamedTuple):
    """Everything the planner reads, from one read transaction at one instant."""

    roles: tuple[RoleView, ...]
    items: tuple[ItemView, ...] = ()
    attempts: tuple[Attempt, ...] = ()
    tasks: tuple[Task, ...] = ()
    meeting_wakes: tuple[MeetingWake, ...] = ()
    help_requests: tuple[HelpRequest, ...] = ()
    rollovers: tuple[RolloverDue, ...] = ()
    inactive_meetings: frozenset[int] = frozenset()
    """Meetings paused or closed: their wakes are withdrawn, not resolved (lessons 5–7)."""
    task_roles: Mapping[int, str] = {}
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
    running: Mapping[str, int] = {}
    """Launches planned or running, per host (read only when the desk caps them)."""
    budgets: tuple[BudgetUse, ...] = ()

    def role(self, name: str) -> RoleView | None:
        return next((r for r in self.roles if r.name == name), None)


class Demand(NamedTuple):
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


class NewAttempt(NamedTuple):
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


class LaunchAction(NamedTuple):
    """One launch for a role this tick, carrying every launch-rung attempt it planned."""

    role: str
    rung: str
    keys: tuple[str, ...]
    """The attempts' keys, primary (highest rung) first."""
    session_id: str | None
    reasons: tuple[str, ...]
    prompt: str
    item_ids: tuple[int, ...]


class Closure(NamedTuple):
    """A live attempt the plan closes, with its outcome and why."""

    attempt_id: int
    outcome: str
    reason: str


class PageAction(NamedTuple):
    """A page to queue. ``key`` is the demand key it is about; a ``notice`` (a usage limit or a
    daily cap parking launches) carries its own once-only ``notice_key``."""

    key: str
    role: str
    title: str
    body: str
    follow_up: bool = False
    notice_key: str | None = None
    attempt_id: int | None = None
    """The live attempt it is about, when this tick inserts none for the key."""


class Note(NamedTuple):
    """Why a role is or is not being woken this tick (for `wake explain`, `--json`)."""

    role: str
    key: str | None
    text: str


class Plan(NamedTuple):
    """What one tick decided: demands, closures, new attempts, launches, pages, notes."""

    now: int
    demands: tuple[Demand, ...] = ()
    closures: tuple[Closure, ...] = ()
    attempts: tuple[NewAttempt, ...] = ()
    launches: tuple[LaunchAction, ...] = ()
    pages: tuple[PageAction, ...] = ()
    notes: tuple[Note, ...] = ()
    settles: tuple[str, ...] = ()
    """Notice keys whose cause has gone (a budget that stopped holding): their pages resolve."""

    @property
    def empty(self) -> bool:
        return not (self.closures or self.attempts or self.launches or self.pages)
