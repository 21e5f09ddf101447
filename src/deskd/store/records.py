"""The frozen records store functions return instead of ``sqlite3.Row``, and how rows fill them.

A record names the columns its readers use, each typed; ``record_of`` fills it from a row by
field name, so a column added by a later migration changes nothing until a record asks for
it, and a field the query did not select falls back to the field's default (or fails loudly
when it has none).

They live here, not beside their statements, because importing ``dataclasses`` (it pulls in
``inspect``) would cost the session hook several times its margin over the floor
(docs/performance.md): the store modules on the hook's path (attempts, items, sessions,
roles) import this module only inside the functions that return records, never at the top,
and the rows only the hook reads (``items_not_shown``, store/briefing.py) stay plain rows.

It runs past 400 lines because it is a catalogue: one short record per table or query.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import MISSING, dataclass, fields
from typing import TypeVar

T = TypeVar("T")

_NAMES: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _fields(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The record's field names without and with a default, cached per record class."""
    found = _NAMES.get(cls)
    if found is None:
        every = fields(cls)
        optional = tuple(
            f.name for f in every if f.default is not MISSING or f.default_factory is not MISSING
        )
        found = (tuple(f.name for f in every if f.name not in optional), optional)
        _NAMES[cls] = found
    return found


def record_of(cls: type[T], row: sqlite3.Row) -> T:
    """``cls`` filled from ``row`` by column name."""
    required, optional = _fields(cls)
    values = {name: row[name] for name in required}
    if optional:
        present = row.keys()
        values.update((name, row[name]) for name in optional if name in present)
    made: T = cls(**values)
    return made


def maybe_record(cls: type[T], row: sqlite3.Row | None) -> T | None:
    return None if row is None else record_of(cls, row)


def records_of(cls: type[T], rows: Iterable[sqlite3.Row]) -> list[T]:
    return [record_of(cls, r) for r in rows]


@dataclass(frozen=True, slots=True, kw_only=True)
class Page:
    """One page row: a message to people about one key (``results`` is the per-URL JSON)."""

    id: int
    attempt_id: int
    key: str
    role: str
    kind: str
    priority: int
    title: str
    body: str
    status: str
    created_at: int
    sent_at: int | None
    resolved_at: int | None
    next_try_at: int | None
    tries: int
    results: str
    held_until: int | None = None
    held_why: str | None = None
    settled_id: int | None = None
    attempt_ref: str | None = None
    """Only from ``list_pages``: the attempt's ``ref`` (where the owed work lives)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Attempt:
    """One row of the wake ledger (``item_ids``/``task_ids`` are the stored JSON lists)."""

    id: int
    key: str
    kind: str
    role: str
    generation: int
    rung: str
    level: int
    reason: str
    ref: str | None
    item_ids: str
    task_ids: str
    attempted_at: int
    due_at: int | None
    outcome: str
    outcome_reason: str | None
    resolved_at: int | None
    supersedes: int | None
    recycles: int
    skipped: str | None
    launch_status: str | None
    launch_detail: str | None
    primary_id: int | None
    wake_token: str | None
    prompt: str | None
    session_id: str | None
    planned_at: int | None
    launched_at: int | None
    landed_at: int | None
    finished_at: int | None
    exit_code: int | None
    failure_class: str | None
    failure_detail: str | None
    hold_until: int | None
    cost_usd: float | None
    acked_at: int | None
    ack_until: int | None
    ack_note: str | None
    launch_runs: int = 0
    """Runs of the agent CLI for this launch (in-rung retries included)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Handoff:
    """A note a session left for the role's next one."""

    id: int
    role: str
    session_id: int | None
    note: str
    by: str
    created_at: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Pause:
    """A person's pause of the desk (``role`` None) or of one role."""

    id: int
    role: str | None
    reason: str
    started_at: int
    ended_at: int | None
    started_by: str | None
    ended_by: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Session:
    """One native agent session serving a role (a history row, not one per role)."""

    id: int
    role: str
    native_id: str | None
    agent: str
    state: str
    started_at: int
    ended_at: int | None
    end_reason: str | None
    last_heartbeat_at: int | None
    last_event: str | None
    last_tool: str | None
    activity: str | None
    wake_token: str | None
    heartbeats: int
    failure: str | None
    failure_detail: str | None
    failure_at: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Item:
    """One inbox item addressed to a role."""

    id: int
    role: str
    message_id: str | None
    source: str
    sender: str | None
    priority: int
    title: str
    body: str
    ref: str | None
    dedup_key: str | None
    dedup_count: int
    enqueued_at: int
    sla_due_at: int
    notified_at: int | None
    seen_at: int | None
    shown_session: str | None
    read_at: int | None
    read_by: str | None
    capability: str | None
    """The capability the item was asked of (``--capability``); None when a role was named."""
    routed_why: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class UnreadItem:
    """The columns of an unread item the planner's snapshot reads (no body)."""

    id: int
    role: str
    priority: int
    source: str
    sender: str | None
    title: str
    ref: str | None
    enqueued_at: int
    sla_due_at: int
    notified_at: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Hook:
    """A wake hook: a schedule (or probe) a role registered for itself (``spec`` is JSON)."""

    id: int
    owner: str
    kind: str
    spec: str
    title: str
    body: str
    priority: int
    status: str
    created_at: int
    until_at: int | None
    next_fire_at: int | None
    last_fire_at: int | None
    fire_count: int
    missed_count: int
    error_streak: int
    last_error: str | None
    retry_at: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Meeting:
    id: int
    agenda: str
    agenda_key: str
    caller: str
    priority: str
    state: str
    max_messages: int
    spent: int
    consensus_at: int
    idle_s: int
    reply_sla_s: int
    called_at: int
    last_activity_at: int
    wake_gen: int
    escalated_at: int | None
    paused_kind: str | None
    pause_reason: str | None
    paused_at: int | None
    paused_by: str | None
    closed_at: int | None
    resolution: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Attendee:
    """One role's place in one meeting."""

    meeting_id: int
    role: str
    status: str
    invite_gen: int
    invited_at: int
    invite_item_id: int | None
    checked_in_at: int | None
    left_at: int | None
    left_reason: str | None
    events_read_id: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MeetingEvent:
    """A line of a meeting's timeline."""

    id: int
    meeting_id: int
    at: int
    kind: str
    role: str | None
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MeetingItem:
    """An unread item a meeting wrote: which meeting (``ref``) and which message."""

    id: int
    ref: str | None
    message_id: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Obligation:
    """An open reply a debtor owes a creditor, with the first 200 characters of the message."""

    id: int
    meeting_id: int
    message_id: int
    debtor: str
    creditor: str
    due_at: int
    created_at: int
    body: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Proposal:
    """A proposal to end a meeting with a resolution."""

    id: int
    meeting_id: int
    proposer: str
    resolution: str
    generation: int
    status: str
    opened_at: int
    closed_at: int | None
    rejected_by: str | None
    reject_reason: str | None
    reject_gen: int | None
    reject_item_id: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Confirmation:
    """A role's confirm vote on a proposal."""

    proposal_id: int
    role: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Task:
    id: int
    role: str
    title: str
    detail: str
    status: str
    priority: int
    blocked_on: str | None
    due_at: int | None
    created_by: str
    created_at: int
    updated_at: int
    closed_at: int | None
    capability: str | None
    routed_why: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskNote:
    """One change or note on a task (``change`` is the JSON of what changed)."""

    id: int
    task_id: int
    at: int
    by: str
    change: str
    note: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskRef:
    """Where a task is now: its assignee and status."""

    id: int
    role: str
    status: str


@dataclass(frozen=True, slots=True, kw_only=True)
class IdleWake:
    """An idle-task wake that ran: the tasks its prompt offered (JSON) and when it launched."""

    task_ids: str
    launched_at: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Silence:
    """A person holds a role's non-urgent pages until ``until_at`` (or until ended)."""

    id: int
    role: str
    reason: str
    started_at: int
    until_at: int
    ended_at: int | None
    started_by: str | None
    ended_by: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class HelpRequest:
    """An agent's unread request for a person (``deskd page --from R``): its item."""

    id: int
    role: str
    title: str
    body: str
    enqueued_at: int
    capability: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class RoleRow:
    """A row of the roles table (the desk file names roles; the table keeps every one seen)."""

    name: str
    title: str
    enabled: int
    in_desk: int
    created_at: int
    updated_at: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Routed:
    """An item or task deskd routed to a role by capability, and why that role."""

    id: int
    role: str
    title: str
    capability: str
    routed_why: str | None
