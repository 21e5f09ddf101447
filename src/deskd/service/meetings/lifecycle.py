"""Meeting use cases: call, check in, leave, pause, resume, the tick's sweep, and the steps
they share. Speaking and reading are in talk.py, the termination handshake in end.py.

Every function acts for the role it is given; the CLI resolves that role with
``acting_role`` (an agent acts only as itself). Each runs in one write transaction: it first
applies any sweep that is due (the same rule the tick applies), then checks the rules in
core/meetings.py, writes, and stores the derived state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple

from deskd.core.meetings import (
    DEFAULT_CONSENSUS_AT,
    DEFAULT_IDLE_S,
    DEFAULT_MAX_MESSAGES,
    DEFAULT_REPLY_SLA_S,
    MeetingFacts,
    closes,
    due_sweep,
    normalize_body,
    resume_refusal,
    standing_refusal,
    state_of,
)
from deskd.core.timeparse import human_age
from deskd.core.values import PRIORITIES as ITEM_PRIORITIES
from deskd.errors import InvalidValue, MeetingRefused
from deskd.service.desk.context import DeskContext
from deskd.service.desk.identity import known_role
from deskd.service.desk.inbox import MAX_TITLE, NewItem, check_length, insert, positive_seconds
from deskd.service.meetings.facts import facts_of, live_facts
from deskd.service.meetings.views import Outcome, outcome_view
from deskd.store import items as item_rows
from deskd.store import meeting_messages as msg_rows
from deskd.store import meetings as rows
from deskd.store.dialect import Connection

PRIORITIES = tuple(p for p in ITEM_PRIORITIES if p in {"normal", "urgent"})
"""A meeting is normal or urgent: the two item priorities its invitations may carry."""


def refuse(reason: str | None) -> None:
    if reason:
        raise MeetingRefused(reason)


def say_why(flag: str, text: str, why: str) -> None:
    """Refuse an empty ``--reason`` (or ``--resolution``): the others read it."""
    if not text.strip():
        raise InvalidValue(flag, text, why)


# --- shared steps -----------------------------------------------------------------------------


@contextmanager
def acting(
    ctx: DeskContext, meeting_id: int, rule: Callable[[MeetingFacts], str | None]
) -> Iterator[tuple[Connection, MeetingFacts]]:
    """One write transaction acting in the meeting: any due sweep applied first, then the
    rule (a refusal writes nothing); the block writes and stores the derived state."""
    with ctx.write() as conn:
        facts = load(conn, meeting_id, now=ctx.now)
        refuse(rule(facts))
        yield conn, facts


def load(conn: Connection, meeting_id: int, *, now: int) -> MeetingFacts:
    """The meeting's facts with any due sweep applied first (and written)."""
    facts = facts_of(conn, meeting_id)
    if apply_sweep(conn, facts, now=now):
        facts = facts_of(conn, meeting_id)
    return facts


def sync_state(conn: Connection, meeting_id: int) -> MeetingFacts:
    """Store the derived state (kept only to index live meetings) and return fresh facts."""
    facts = facts_of(conn, meeting_id)
    state = state_of(facts)
    if facts.meeting.closed_at is None:
        rows.set_state(conn, meeting_id, state)
    return facts


def event(
    conn: Connection, meeting_id: int, kind: str, role: str | None, text: str, *, now: int
) -> int:
    return rows.add_meeting_event(
        conn, meeting_id=meeting_id, at=now, kind=kind, role=role, text=text
    )


def meeting_item(
    conn: Connection,
    facts: MeetingFacts,
    *,
    to: str,
    sender: str | None,
    title: str,
    body: str,
    key: str,
    now: int,
) -> int:
    """One meeting item in ``to``'s ledger (source ``meeting``): the session hook surfaces it,
    the ledger shows it; an urgent meeting's items are urgent (no inbox batch)."""
    m = facts.meeting
    line = " ".join(title.split())
    title = f"[meeting {m.id}] {line}"
    if len(title) > MAX_TITLE:
        title = title[: MAX_TITLE - 1] + "…"
    item_id, _ = insert(
        conn,
        NewItem(
            role=to,
            source="meeting",
            title=title,
            body=body,
            ref=f"meeting:{m.id}",
            priority="urgent" if m.urgent else "normal",
            sender=sender,
            message_id=f"meeting:{m.id}:{key}",
        ),
        now=now,
    )
    return item_id


def read_items(
    conn: Connection, role: str, keys: Sequence[str], *, meeting_id: int, now: int
) -> int:
    """Mark read the role's items for these meeting keys (it answered, voted or checked in)."""
    ids = rows.unread_items_of_messages(conn, role, [f"meeting:{meeting_id}:{k}" for k in keys])
    return item_rows.ack_items(conn, role, ids, now=now, by=role)


def waive(conn: Connection, meeting_id: int, reason: str, *, now: int) -> int:
    count = msg_rows.waive_obligations(conn, meeting_id, reason=reason, now=now)
    if count:
        said = f"{count} owed repl{'ies' if count != 1 else 'y'} waived: {reason}"
        event(conn, meeting_id, "obligations.waived", None, said, now=now)
    return count


def close_meeting(conn: Connection, facts: MeetingFacts, resolution: str, *, now: int) -> None:
    """Close: waive every debt, finish the proposal, record the resolution. Its wake demands
    vanish with it (withdrawn on the next tick); its unread items stay as history."""
    m = facts.meeting
    if facts.proposal is not None:
        msg_rows.finish_proposal(conn, facts.proposal.id, status="accepted", now=now)
    waive(conn, m.id, "the meeting closed", now=now)
    rows.close(conn, m.id, resolution=resolution, now=now)
    event(conn, m.id, "closed", None, f"closed: {resolution}", now=now)


# --- the tick's sweep -------------------------------------------------------------------------


def close_if_agreed(conn: Connection, facts: MeetingFacts, *, now: int) -> bool:
    """Close the meeting when its open proposal has every vote it needs; returns whether."""
    if facts.proposal is None or not closes(facts):
        return False
    close_meeting(conn, facts, facts.proposal.resolution, now=now)
    return True


def apply_sweep(conn: Connection, facts: MeetingFacts, *, now: int) -> bool:
    """Write the time-based transition due for one meeting (idle pause, attendance
    escalation); returns whether one was due."""
    sweep = due_sweep(facts, now=now)
    if sweep.empty:
        return False
    m = facts.meeting
    if sweep.idle_pause:
        reason = f"idle for {human_age(m.idle_s)}"
        if rows.pause(conn, m.id, kind="idle", reason=reason, by=None, now=now):
            said = f"paused: {reason}; any attendee may resume it"
            event(conn, m.id, "paused", None, said, now=now)
            sync_state(conn, m.id)
        return True
    if rows.mark_escalated(conn, m.id, generation=sweep.generation, now=now):
        rows.rearm_invitations(conn, m.id, sweep.escalate, generation=sweep.generation)
        said = f"attendance overdue: waking {', '.join(sweep.escalate)} again (once)"
        event(conn, m.id, "escalated", None, said, now=now)
    return True


def sweep_meetings(ctx: DeskContext) -> int:
    """The tick's meeting step (execute mode): pause idle meetings, escalate late attendance;
    returns how many meetings it swept.

    A dry run computes the same wakes without writing (``load_meeting_views`` applies the
    same sweep in memory)."""
    if all(due_sweep(f, now=ctx.now).empty for f in live_facts(ctx.conn)):
        return 0  # nothing due: no write transaction
    with ctx.write() as conn:
        return sum(apply_sweep(conn, facts, now=ctx.now) for facts in live_facts(conn))


# --- calling and attending --------------------------------------------------------------------


class Call(NamedTuple):
    caller: str
    agenda: str
    attendees: Sequence[str]
    priority: str = "normal"
    max_messages: int = DEFAULT_MAX_MESSAGES
    idle: str | int = DEFAULT_IDLE_S
    reply_sla: str | int = DEFAULT_REPLY_SLA_S
    consensus_at: int = DEFAULT_CONSENSUS_AT


def _validate_call(ctx: DeskContext, call: Call) -> tuple[list[str], int, int]:
    agenda = call.agenda.strip()
    if not agenda:
        raise InvalidValue("agenda", call.agenda, "must not be empty")
    check_length("agenda", agenda, 300)
    if call.priority not in PRIORITIES:
        raise InvalidValue("priority", call.priority, "a meeting is normal or urgent")
    invited = [a for a in dict.fromkeys(call.attendees) if a and a != call.caller]
    if not invited:
        raise InvalidValue(
            "--attendees",
            ",".join(call.attendees),
            "name the roles to invite (other than the caller), e.g. --attendees beta,gamma",
        )
    for name in invited:
        known_role(ctx, name)
    if call.max_messages < 1:
        raise InvalidValue("--max-messages", call.max_messages, "at least 1")
    if not 0 <= call.consensus_at < call.max_messages:
        raise InvalidValue(
            "--consensus-at",
            call.consensus_at,
            f"from 0 to {call.max_messages - 1} (below --max-messages)",
        )
    idle_s = positive_seconds(call.idle, "--idle")
    return invited, idle_s, positive_seconds(call.reply_sla, "--reply-sla")


def call_meeting(ctx: DeskContext, call: Call) -> tuple[int, str, bool]:
    """Open a meeting, or return the open (or paused) one with the same agenda.

    Returns (meeting id, state, existing). Every invited role but the caller (checked in at
    once) gets an invitation item and a ``meeting`` wake until it checks in.
    """
    invited, idle_s, reply_sla_s = _validate_call(ctx, call)
    key = normalize_body(call.agenda)
    now = ctx.now
    with ctx.write() as conn:
        meeting_id = rows.insert_meeting(
            conn,
            agenda=call.agenda.strip(),
            agenda_key=key,
            caller=call.caller,
            priority=call.priority,
            state="waiting",
            max_messages=call.max_messages,
            consensus_at=call.consensus_at,
            idle_s=idle_s,
            reply_sla_s=reply_sla_s,
            now=now,
        )
        if meeting_id is None:
            existing = rows.open_meeting_by_agenda(conn, key)
            assert existing is not None
            return int(existing.id), str(existing.state), True
        rows.insert_attendee(
            conn, meeting_id=meeting_id, role=call.caller, status="present", now=now
        )
        for role in invited:
            rows.insert_attendee(conn, meeting_id=meeting_id, role=role, status="invited", now=now)
        facts = facts_of(conn, meeting_id)
        for role in invited:
            meeting_item(
                conn,
                facts,
                to=role,
                sender=call.caller,
                title=f"{call.caller} invites you: {facts.meeting.agenda}",
                body=(
                    f"Attendees: {call.caller} (caller), {', '.join(invited)}.\n"
                    f"Check in: deskd meeting check-in {meeting_id} --role {role}\n"
                    f'Cannot attend: deskd meeting leave {meeting_id} --role {role} --reason "…"'
                ),
                key="invite",
                now=now,
            )
        said = f"{call.caller} called it; invited {', '.join(invited)}"
        event(conn, meeting_id, "called", call.caller, said, now=now)
        state = state_of(sync_state(conn, meeting_id))
    return meeting_id, state, False


def _may_attend(role: str) -> Callable[[MeetingFacts], str | None]:
    """The rule for checking in and leaving: the meeting is open and ``role`` was invited."""
    return lambda f: standing_refusal(f, role, paused=False, must_be_present=False)


def check_in(ctx: DeskContext, meeting_id: int, role: str) -> Outcome:
    """Check in (idempotent). The last invitee's check-in starts the meeting; a third
    attendee turns a conversation into a discussion, so one-to-one debts are waived."""
    now = ctx.now
    with acting(ctx, meeting_id, _may_attend(role)) as (conn, facts):
        before = len(facts.present)
        if rows.check_in(conn, meeting_id, role, now=now):
            rows.touch(conn, meeting_id, now=now)
            read_items(conn, role, ["invite"], meeting_id=meeting_id, now=now)
            event(conn, meeting_id, "checked_in", role, f"{role} checked in", now=now)
            if before == 2:
                waive(conn, meeting_id, f"{role} joined: three attendees are a discussion", now=now)
        facts = sync_state(conn, meeting_id)
    return outcome_view(facts, now=now)


def leave(ctx: DeskContext, meeting_id: int, role: str, reason: str) -> Outcome:
    """Leave (or decline): debts are waived, the end tally is re-counted without the role."""
    say_why("--reason", reason, "say why you leave")
    now = ctx.now
    with acting(ctx, meeting_id, _may_attend(role)) as (conn, facts):
        rows.leave(conn, meeting_id, role, reason=reason, now=now)
        # Its unread items of this meeting would otherwise keep waking a role that left.
        ids = [int(r.id) for r in rows.unread_meeting_items(conn, role, f"meeting:{meeting_id}")]
        item_rows.ack_items(conn, role, ids, now=now, by=role)
        rows.touch(conn, meeting_id, now=now)
        event(conn, meeting_id, "left", role, f"{role} left: {reason}", now=now)
        waive(conn, meeting_id, f"{role} left", now=now)
        facts = facts_of(conn, meeting_id)
        if not facts.present and not facts.invited:
            close_meeting(conn, facts, "everyone left", now=now)
        else:
            close_if_agreed(conn, facts, now=now)
        facts = sync_state(conn, meeting_id)
    return outcome_view(facts, now=now)


def pause(ctx: DeskContext, meeting_id: int, role: str, reason: str) -> Outcome:
    say_why("--reason", reason, "say why you pause it")
    now = ctx.now
    with acting(ctx, meeting_id, lambda f: standing_refusal(f, role)) as (conn, facts):
        rows.pause(conn, meeting_id, kind="manual", reason=reason, by=role, now=now)
        event(conn, meeting_id, "paused", role, f"{role} paused it: {reason}", now=now)
        facts = sync_state(conn, meeting_id)
    return outcome_view(facts, now=now)


def resume(ctx: DeskContext, meeting_id: int, role: str) -> Outcome:
    """Resume a meeting paused for idleness (or by an attendee); one paused by its budget only
    ends. Debts that could not be paid while paused are due one reply SLA from now."""
    now = ctx.now
    with acting(ctx, meeting_id, lambda f: resume_refusal(f, role)) as (conn, facts):
        rows.unpause(conn, meeting_id, now=now)
        msg_rows.push_due(conn, meeting_id, due_at=now + facts.meeting.reply_sla_s * 1000)
        event(conn, meeting_id, "resumed", role, f"{role} resumed it", now=now)
        facts = sync_state(conn, meeting_id)
    return outcome_view(facts, now=now)


def read_notices(conn: Connection, facts: MeetingFacts, role: str, *, now: int) -> None:
    """The proposer acting in the meeting again has read the rejection of its proposal."""
    keys = [f"r{r.id}" for r in facts.rejections if r.proposer == role]
    if keys:
        read_items(conn, role, keys, meeting_id=facts.meeting.id, now=now)
