"""The wake ledger as people read it: list, explain, acknowledge."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deskd.core.demand import inbox_due_at
from deskd.core.govern import waiting
from deskd.core.ladder import explain_start, role_busy
from deskd.core.planner import plan as make_plan
from deskd.core.timeparse import human_age, iso_utc, local_text
from deskd.errors import AttemptClosed, InvalidValue, PeopleCommand, UnknownAttempt
from deskd.service.desk.context import DeskContext
from deskd.service.engine.attempt_views import attempt_view
from deskd.service.engine.snapshot import load_snapshot, policy_of
from deskd.service.meetings.views import meeting_sources
from deskd.service.work.task_views import explain_tasks, task_sources
from deskd.store import attempts as attempt_rows
from deskd.store.items import ack_items, unread_items
from deskd.store.records import JSON

if TYPE_CHECKING:
    from deskd.store.records.wakes import Page

ACK_TIMEOUT_S = 4 * 3600


def list_wakes(
    ctx: DeskContext,
    *,
    role: str | None,
    open_only: bool,
    limit: int,
    rung: str = "",
    outcome: str = "",
    reason: str = "",
) -> list[JSON]:
    """The newest ``limit`` wakes; ``rung``, ``outcome`` and ``reason`` (when given) filter
    in the query, before the limit."""
    if role is not None:
        ctx.desk.role(role)
    match = {"rung": rung, "outcome": outcome, "kind": reason}
    rows = attempt_rows.list_attempts(
        ctx.conn,
        role=role,
        open_only=open_only,
        limit=limit,
        **{column: value for column, value in match.items() if value},
    )
    return [attempt_view(r) for r in rows]


def ack(
    ctx: DeskContext,
    attempt_id: int,
    *,
    note: str,
    hold_s: int = ACK_TIMEOUT_S,
    settle: bool = True,
) -> JSON:
    """A person has it: the attempt stops climbing and paging until its demand changes or
    ``hold_s`` pass. ``settle=False`` (a snooze) leaves a help request unanswered. Returns
    `wake ack --json`: until when a person has the attempt, and their note."""
    if ctx.settings.role:
        raise PeopleCommand("deskd wake ack", "an agent acks its items with `deskd inbox ack`")
    if not note.strip():
        raise InvalidValue("note", note, "say who has it and what they will do")
    with ctx.write() as conn:
        row = attempt_rows.get_attempt(conn, attempt_id)
        if row is None:
            raise UnknownAttempt(attempt_id, see="deskd wake list --open")
        if row.outcome != "pending":
            raise AttemptClosed(attempt_id, row.outcome)
        until = ctx.now + hold_s * 1000
        attempt_rows.ack_attempt(conn, attempt_id, until=until, note=note, now=ctx.now)
        if row.kind == "help" and settle:
            # A person has the agent's request for help: its item is read, so the help
            # demand resolves on the next tick (and its delivered page gets "settled").
            item_id = int(row.key.split(":", 1)[1])
            ack_items(conn, row.role, [item_id], now=ctx.now, by=ctx.actor)
        subject = f"attempt:{attempt_id}"
        ctx.event(
            conn, "attempt.acked", subject, role=row.role, actor=ctx.actor, detail={"note": note}
        )
    return {"id": attempt_id, "ack_until": iso_utc(until), "note": note}


def act_on_page(
    ctx: DeskContext, page: Page, action: str, attempt_id: int, how: str, *, snooze_s: int = 0
) -> str:
    """A person's ``ack``, ``snooze`` (an ack for ``snooze_s`` that answers no help request) or
    ``resolve`` of a page's live attempt, from a link or an emailed reply; ``resolve`` also
    marks read what the page is about (a help request is answered by the ack itself)."""
    if action == "snooze":
        span = f"{snooze_s // 3600} h" if snooze_s % 3600 == 0 else f"{snooze_s // 60} min"
        ack(ctx, attempt_id, note=f"snoozed {span} {how}", hold_s=snooze_s, settle=False)
        return f"snoozed for {span}: paged again then if it is still owed"
    if action == "ack":
        until = ack(ctx, attempt_id, note=f"acknowledged {how}")["ack_until"]
        return f"acknowledged: no more pages about this until {until} (UTC)"
    ack(ctx, attempt_id, note=f"resolved {how}")
    row = attempt_rows.get_attempt(ctx.conn, attempt_id)
    ids = list(row.item_ids) if row else []
    if not ids and page.key.startswith("inbox:"):
        ids = [i.id for i in unread_items(ctx.conn, page.role)]
    ack_items(ctx.conn, page.role, ids, now=ctx.now, by=ctx.actor)
    return "resolved: its demand ends on the next tick"


def explain_role(ctx: DeskContext, role: str) -> list[str]:
    """Why ``role`` is or is not being woken now, rung by rung. Reads only."""
    ctx.desk.role(role)
    snapshot = load_snapshot(ctx.conn, ctx.desk, now=ctx.now, host=ctx.settings.host_id)
    policy = policy_of(ctx.desk)
    view = snapshot.role(role)
    assert view is not None
    lines = [f"{role}: presence {view.presence}" + (" (busy)" if role_busy(view) else "")]
    if not view.enabled:
        lines.append("disabled in the desk file: no wakes; its demand is withdrawn")
    if snapshot.desk_paused or view.paused:
        lines.append(f"paused: {view.pause_reason or 'the desk is paused'} (`deskd resume`)")
    if view.held_until and view.held_until > ctx.now:
        lines.append(f"usage limit: launches held until {local_text(view.held_until, ctx.tz)}")
    items = [i for i in snapshot.items if i.role == role]
    due = inbox_due_at(items, batch_s=policy.inbox_batch_s)
    if not items:
        lines.append("inbox: nothing unread — no inbox demand")
    elif due is not None and due > ctx.now:
        lines.append(
            f"inbox: {len(items)} unread, wakes in {human_age((due - ctx.now) / 1000)} "
            f"(batch of {policy.inbox_batch_s}s from the oldest)"
        )
    else:
        lines.append(f"inbox: {len(items)} unread — demanded now")
    from deskd.routing.service import explain_lines

    lines.extend(explain_tasks(snapshot, role, now=ctx.now, tz=ctx.tz))
    lines.extend(explain_lines(ctx, role))
    lines.append(explain_start(view))
    plan = make_plan(snapshot, now=ctx.now, policy=policy)
    for a in snapshot.attempts:
        if a.role == role:
            sla = f", SLA until {local_text(a.due_at, ctx.tz)}" if a.due_at else ""
            status = f", launch {a.launch_status}" if a.launch_status else ""
            waits = f" — {a.skipped}" if waiting(a.skipped) else ""
            lines.append(f"live attempt {a.id}: {a.key} on {a.rung}{sla}{status}{waits}")
            if a.ack_until and a.ack_until > ctx.now:
                lines.append(f"  acknowledged until {local_text(a.ack_until, ctx.tz)}")
    lines += [f"this tick: {note.text}" for note in plan.notes if note.role == role]
    for c in plan.closures:
        if any(a.id == c.attempt_id and a.role == role for a in snapshot.attempts):
            lines.append(f"this tick: attempt {c.attempt_id} would be {c.outcome} ({c.reason})")
    for n in plan.attempts:
        if n.role == role:
            skip = f" — skipped: {n.skipped}" if n.skipped else ""
            lines.append(f"this tick: {n.key} → {n.rung}{skip}")
    return lines


def explain_attempt(ctx: DeskContext, attempt_id: int) -> list[str]:
    """The climb of one attempt's key, rung by rung, oldest first."""
    row = attempt_rows.get_attempt(ctx.conn, attempt_id)
    if row is None:
        raise UnknownAttempt(attempt_id)
    history = list(reversed(attempt_rows.attempts_for_key(ctx.conn, row.key)))
    lines = [f"{row.key} ({row.role}):"]
    for r in history:
        mark = "→" if r.id == attempt_id else " "
        launch = f", launch {r.launch_status}" if r.launch_status else ""
        detail = r.launch_detail or r.outcome_reason or ""
        lines.append(
            f"{mark} #{r.id} gen {r.generation} {r.rung:<7} "
            f"{local_text(r.attempted_at, ctx.tz)} {r.outcome}{launch}"
            + (f" — {detail}" if detail else "")
        )
    return lines


def sources(ctx: DeskContext, role: str) -> JSON:
    """Everything that can wake ``role``, and how to change each (`deskd wake sources`)."""
    from deskd.service.engine.hooks import list_hooks

    ctx.desk.role(role)
    snapshot = load_snapshot(ctx.conn, ctx.desk, now=ctx.now)
    policy = policy_of(ctx.desk)
    items = [i for i in snapshot.items if i.role == role]
    due = inbox_due_at(items, batch_s=policy.inbox_batch_s)
    hooks = list_hooks(ctx, owner=role, include_closed=False)
    attempts = [
        attempt_view(r)
        for r in attempt_rows.list_attempts(ctx.conn, role=role, open_only=True, limit=100)
    ]
    manage = [
        f"deskd inbox list --for {role}            # what is queued",
        f"deskd inbox ack --for {role} --seen      # mark what it was shown as read",
        f"deskd hook cancel ID --by {role}         # stop a wake hook",
        f"deskd pause --role {role} --reason TEXT  # hold its launches and pages",
        "deskd wake ack ATTEMPT_ID --note TEXT    # a person has it: stop climbing",
        f'enabled = false under [[roles]] name = "{role}" in deskd.toml  # no wakes at all',
    ]
    return {
        "role": role,
        "hooks": hooks,
        "inbox": {
            "unread": len(items),
            "urgent": sum(1 for i in items if i.priority >= 3),
            "wakes_at": iso_utc(due),
            "batch_s": policy.inbox_batch_s,
            "sources": ["message", "meeting", "system", *ctx.desk.section.inbox_sources],
        },
        "tasks": task_sources(snapshot, role, now=ctx.now),
        "meetings": meeting_sources(snapshot, role),
        "attempts": attempts,
        "manage": manage,
    }
