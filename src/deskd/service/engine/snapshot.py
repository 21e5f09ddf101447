"""Build the planner's ``Snapshot`` and ``Policy`` from committed rows and the desk.

Its cost scales with live rows (unread items, pending attempts, open pages, live sessions),
not with history: every query here runs on a partial index of live state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from deskd.config.desk import Desk
from deskd.core.records import ItemView, Policy, RoleView, RolloverDue, Rung, Snapshot
from deskd.core.sessions import latest_boundary, presence_of
from deskd.core.timeparse import local_day_start, local_text
from deskd.core.values import DEFAULT_SLA_S, priority_rank
from deskd.service.engine.budgets import load_budgets
from deskd.service.meetings.views import load_meeting_views
from deskd.service.work.task_views import load_task_views
from deskd.store import attempts as attempt_rows
from deskd.store import items as item_rows
from deskd.store.db import read_transaction
from deskd.store.handoffs import live_sessions_started_before, rollover_tries
from deskd.store.metrics import in_flight_by_host
from deskd.store.pages import notice_keys_since, open_page_keys
from deskd.store.pauses import live_pauses
from deskd.store.questions import open_help_requests
from deskd.store.sessions import LIVE_STATES, current_sessions

if TYPE_CHECKING:
    from deskd.service.engine.hook_fire import Fired
    from deskd.store.dialect import Connection
    from deskd.store.records.roles import Handoff, Session


def policy_of(desk: Desk) -> Policy:
    section = desk.section
    return Policy(
        ladder=tuple(Rung(name=n, sla_s=s) for n, s in desk.ladder),
        inbox_batch_s=section.inbox_batch,
        max_launches_per_day=section.max_launches_per_day,
        max_cost_per_day=section.max_cost_per_day,
        max_running=section.max_running,
        max_running_per_host=section.max_running_per_host,
    )


def load_snapshot(conn: Connection, desk: Desk, *, now: int, host: str = "") -> Snapshot:
    """The planner's input, read inside one read transaction: ~15 queries, one point in time
    (a write committed between two of them would otherwise make the plan inconsistent).
    ``host`` is the planning host, which runs the launches of roles bound to none."""
    with read_transaction(conn):
        return _load_snapshot(conn, desk, now=now, host=host)


def _load_snapshot(conn: Connection, desk: Desk, *, now: int, host: str) -> Snapshot:
    sessions = {r.role: r for r in current_sessions(conn)}
    in_flight = attempt_rows.in_flight_roles(conn)
    day_start = local_day_start(now, desk.timezone)
    totals = attempt_rows.launch_totals_since(conn, day_start)
    holds = _account_holds(desk, attempt_rows.holds_after(conn, now))
    section = desk.section
    running = in_flight_by_host(conn) if section.max_running or section.max_running_per_host else {}
    budgets, expected = load_budgets(conn, desk, now=now, running=in_flight)
    pauses = live_pauses(conn)
    desk_pause = next((p for p in pauses if p.role is None), None)
    role_pauses = {str(p.role): p for p in pauses if p.role is not None}
    handoffs = _handoffs(conn, desk, sessions)
    roles = []
    # Read once, not per role: each is a lookup through the desk's read-only records.
    configs, online_s, suspect_s = desk.roles, desk.presence.online, desk.presence.suspect
    for name in desk.role_names:
        config = configs[name]
        s = sessions.get(name)
        presence = presence_of(
            s.state if s else None,
            s.last_heartbeat_at if s else None,
            now=now,
            online_s=online_s,
            suspect_s=suspect_s,
        )
        resumable = _resumable(s)
        pause = role_pauses.get(name)
        launches, cost = totals.get(name, (0, 0.0))
        roles.append(
            RoleView(
                name=name,
                enabled=config.enabled,
                presence=presence,
                session_id=str(s.native_id) if resumable and s is not None else None,
                launch_running=name in in_flight,
                paused=pause is not None,
                pause_reason=str(pause.reason) if pause is not None else None,
                held_until=holds.get(name),
                launches_today=launches,
                cost_today=cost,
                prompt=config.prompt if resumable else _fresh_prompt(desk, name, s, handoffs),
                dead_since=(
                    int(s.last_heartbeat_at or 0) + suspect_s * 1000
                    if presence == "dead" and s is not None
                    else None
                ),
                host=config.host or host,
                account=desk.account_of(name),
                expected_tokens=expected.get(name, (0.0, 0.0))[0],
                expected_usd=expected.get(name, (0.0, 0.0))[1],
            )
        )
    tasks, task_roles, done_tasks = load_task_views(conn, desk, now=now)
    meeting_wakes, inactive_meetings, dormant_items = load_meeting_views(conn, desk, now=now)
    items = tuple(
        r._replace(live=r.id not in dormant_items) for r in item_rows.all_unread_items(conn)
    )
    broken: dict[str, str] = {}
    attempts = []
    for r in attempt_rows.live_attempts(conn):
        if r.unreadable is None:
            attempts.append(r)
        else:
            # A corrupt row must not stop every other role's wakes (nor crash-loop the tick).
            broken.setdefault(r.role, f"attempt {r.id} unreadable ({r.unreadable})")
    return Snapshot(
        broken=tuple(sorted(broken.items())),
        roles=tuple(roles),
        items=items,
        attempts=tuple(attempts),
        tasks=tasks,
        task_roles=task_roles,
        done_tasks=done_tasks,
        meeting_wakes=meeting_wakes,
        inactive_meetings=inactive_meetings,
        help_requests=tuple(open_help_requests(conn)),
        rollovers=_rollovers(conn, desk, now=now),
        open_page_keys=frozenset(open_page_keys(conn)),
        notice_keys=frozenset(notice_keys_since(conn, now - 7 * 86_400_000)),
        day_start=day_start,
        desk_paused=desk_pause is not None,
        running=running,
        budgets=budgets,
    )


def _account_holds(desk: Desk, holds: dict[str, int]) -> dict[str, int]:
    """A usage limit holds every role on the account of the role that hit it, until its reset."""
    accounts: dict[str, int] = {}
    for name, until in holds.items():
        account = desk.account_of(name) if name in desk.roles else None
        if account is not None:
            accounts[account] = max(until, accounts.get(account, 0))
    if not accounts:
        return holds
    out = dict(holds)
    for name in desk.roles:
        reset = accounts.get(desk.account_of(name) or "")
        if reset is not None:
            out[name] = max(reset, out.get(name, 0))
    return out


def with_would_fire(snapshot: Snapshot, fired: Sequence[Fired], *, now: int) -> Snapshot:
    """A dry run's snapshot: hooks that would fire add their items in memory (negative ids),
    so the printed plan shows the wakes they would cause — and nothing is written. A hook whose
    earlier item is still unread would coalesce into it (dedup by hook), so it adds nothing."""
    pending_refs = {i.ref for i in snapshot.items if i.source == "system"}
    extra = [
        ItemView(
            id=-f.hook_id,
            role=f.owner,
            priority=priority_rank(f.priority),
            source="system",
            title=f"{f.title} (would fire)",
            enqueued_at=now,
            sla_due_at=now + DEFAULT_SLA_S[f.priority] * 1000,
            ref=f"hook:{f.hook_id}",
        )
        for f in fired
        if f.would and f.fire_at is not None and f"hook:{f.hook_id}" not in pending_refs
    ]
    if not extra:
        return snapshot
    return snapshot._replace(items=snapshot.items + tuple(extra))


def _resumable(s: Session | None) -> bool:
    return s is not None and s.state in LIVE_STATES and bool(s.native_id)


def _handoffs(conn: Connection, desk: Desk, sessions: dict[str, Session]) -> dict[str, Handoff]:
    """The latest hand-off of each role with no resumable session: one statement for all."""
    from deskd.store.handoffs import latest_handoffs

    fresh = [n for n in desk.role_names if not _resumable(sessions.get(n))]
    return latest_handoffs(conn, fresh) if fresh else {}


def _fresh_prompt(
    desk: Desk, role: str, session: Session | None, handoffs: dict[str, Handoff]
) -> str:
    """The desk prompt of a role with no resumable session: a fresh session starts from the
    latest hand-off, when no session has started since it was written (the tasks/sessions
    issue: ``deskd session handoff``, core/sessions.py)."""
    from deskd.core.sessions import prompt_with_handoff

    prompt = desk.roles[role].prompt
    note = handoffs.get(role)
    if note is None or (session is not None and session.started_at > note.created_at):
        return prompt
    written = local_text(note.created_at, desk.timezone)
    return prompt_with_handoff(prompt, note=note.note, written=written)


def rollover_key(session_key: str) -> str:
    return f"rollover:{session_key}"


def _rollovers(conn: Connection, desk: Desk, *, now: int) -> tuple[RolloverDue, ...]:
    """Sessions due to wind down: live ones started before the latest ``rollover_at``
    boundary (desk timezone). One with no native id cannot be resumed to wind it down; it is
    left alone (the role's next spawn supersedes it). ``tries`` counts the key's wind-down
    launches that ended without ending the session, read from the attempt ledger: after
    ``MAX_TRIES`` the demand stops launching and pages a person once."""
    boundary = latest_boundary(now, tz=desk.timezone, rollover_at=desk.section.rollover_at)
    return tuple(
        RolloverDue(
            role=s.role,
            session_key=str(s.id),
            started_at=s.started_at,
            tries=rollover_tries(conn, rollover_key(str(s.id))),
        )
        for s in live_sessions_started_before(conn, boundary)
        if s.native_id
    )
