"""Speaking in a meeting and reading it: send, position, updates.

A message is an item for every other attendee; it spends one of the budget, settles the
debts it names, and (two attendees checked in) makes the other owe a reply. A message is
never refused because someone owes a reply (lesson 34); a position never spends the budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypedDict

from deskd.core.meetings import (
    MeetingFacts,
    attendee_refusal,
    normalize_body,
    obligation_debtor,
    position_refusal,
    recipients_of,
    speak_refusal,
    state_of,
    swept,
)
from deskd.core.timeparse import iso_utc
from deskd.core.values import SUPERVISOR
from deskd.errors import DuplicateMessage, InvalidValue, MeetingRefused
from deskd.service.desk.context import DeskContext
from deskd.service.desk.inbox import MAX_BODY, check_length
from deskd.service.meetings.facts import facts_of
from deskd.service.meetings.lifecycle import (
    acting,
    event,
    meeting_item,
    read_items,
    read_notices,
    refuse,
    sync_state,
)
from deskd.service.meetings.views import message_view, status_view
from deskd.store import items as item_rows
from deskd.store import meeting_messages as msg_rows
from deskd.store import meetings as rows
from deskd.store.records import JSON, shown

if TYPE_CHECKING:
    from deskd.store.dialect import Connection


class OwedReply(TypedDict):
    message_id: int
    to: str
    due_at: str | None


class Said(TypedDict):
    """What ``meeting send`` and ``meeting position`` print: the message's id, the meeting's
    state and budget, what it settled, and what is still owed."""

    meeting_id: int
    message_id: int
    state: str
    budget_left: int
    settled: list[int]
    owed_by_you: list[OwedReply]
    reply_owed_by: str | None
    warning: str | None


def check_body(body: str, what: str = "--body") -> None:
    if not body.strip():
        raise InvalidValue(what, body, "must not be empty")
    check_length(what, body, MAX_BODY)


def first_line(body: str) -> str:
    return body.strip().splitlines()[0] if body.strip() else ""


def send(
    ctx: DeskContext,
    meeting_id: int,
    role: str,
    body: str,
    *,
    kind: str = "evidence",
    reply_to: int | None = None,
    resolves: Sequence[int] = (),
) -> Said:
    check_body(body)
    now = ctx.now
    answered = list(dict.fromkeys([*([reply_to] if reply_to is not None else []), *resolves]))
    with acting(ctx, meeting_id, lambda f: speak_refusal(f, role, kind)) as (conn, facts):
        read_notices(conn, facts, role, now=now)
        known = set(msg_rows.message_ids_in(conn, meeting_id, answered))
        missing = [i for i in answered if i not in known]
        if missing:
            raise InvalidValue(
                "--reply-to/--resolves",
                ",".join(map(str, missing)),
                f"not a message of meeting {meeting_id} (see `deskd meeting updates`)",
            )
        message_id = say(conn, facts, role, kind, body, reply_to, answered, now=now)
        spent = rows.spend(conn, meeting_id)
        settled = msg_rows.settle_obligations(
            conn, meeting_id, role, answered, by_message=message_id, reason="replied", now=now
        )
        read_items(conn, role, [str(i) for i in answered], meeting_id=meeting_id, now=now)
        debtor = obligation_debtor(facts, role)
        if debtor is not None:
            due = now + facts.meeting.reply_sla_s * 1000
            msg_rows.insert_obligation(
                conn,
                meeting_id=meeting_id,
                message_id=message_id,
                debtor=debtor,
                creditor=role,
                now=now,
                due_at=due,
            )
        warnings = _budget_step(conn, facts, role, spent, now=now)
        facts = sync_state(conn, meeting_id)
    owed: list[OwedReply] = [
        {"message_id": o.message_id, "to": o.creditor, "due_at": iso_utc(o.due_at)}
        for o in facts.obligations
        if o.debtor == role
    ]
    if owed:
        ids = " ".join(str(o["message_id"]) for o in owed)
        warnings.insert(
            0, f"you still owe a reply to message {ids} (--reply-to / --resolves {ids})"
        )
    return _said(facts, message_id, settled, owed=owed, debtor=debtor, warnings=warnings)


def _said(
    facts: MeetingFacts,
    message_id: int,
    settled: Sequence[int],
    *,
    owed: list[OwedReply] | None = None,
    debtor: str | None = None,
    warnings: Sequence[str] = (),
) -> Said:
    return {
        "meeting_id": facts.meeting.id,
        "message_id": message_id,
        "state": state_of(facts),
        "budget_left": facts.meeting.budget_left,
        "settled": list(settled),
        "owed_by_you": owed or [],
        "reply_owed_by": debtor,
        "warning": "; ".join(warnings) or None,
    }


def say(
    conn: Connection,
    facts: MeetingFacts,
    sender: str,
    kind: str,
    body: str,
    reply_to: int | None,
    resolves: Sequence[int],
    *,
    now: int,
) -> int:
    """Store a message and give every other attendee its item; returns its id. A position,
    and anything the supervisor says, spends no budget (the budget bounds the attendees' talk,
    not a person's steering). A repeated message (or a second position) is refused."""
    m = facts.meeting
    recipients = recipients_of(facts, sender)
    # A position may restate what its author said before: it is one of a kind per attendee
    # (its own unique index), so only messages are compared with messages.
    body_key = ("position:" if kind == "position" else "") + normalize_body(body)
    message_id = msg_rows.insert_message(
        conn,
        meeting_id=m.id,
        sender=sender,
        kind=kind,
        body=body,
        body_key=body_key,
        recipients=recipients,
        reply_to=reply_to,
        resolves=resolves,
        spent=kind != "position" and sender != SUPERVISOR,
        now=now,
    )
    if message_id is None:
        original = msg_rows.duplicate_of(
            conn, meeting_id=m.id, sender=sender, recipients=recipients, body_key=body_key
        )
        if original is not None:
            raise DuplicateMessage(m.id, original)
        earlier = msg_rows.position_of(conn, m.id, sender)
        raise MeetingRefused(
            f"{sender!r} already stated a position in meeting {m.id} (message {earlier})"
        )
    rows.touch(conn, m.id, now=now)
    line = first_line(body)
    if sender == SUPERVISOR:
        title = f"supervisor: {line}"
    elif kind == "position":
        title = f"{sender}'s position: {line}"
    else:
        title = f"{sender} ({kind}): {line}"
    for to in recipients:
        meeting_item(
            conn, facts, to=to, sender=sender, title=title, body=body, key=str(message_id), now=now
        )
    return message_id


def _budget_step(
    conn: Connection, facts: MeetingFacts, role: str, spent: int, *, now: int
) -> list[str]:
    """After a message spent the budget: enter consensus at the threshold, pause at zero."""
    m = facts.meeting
    left = max(0, m.max_messages - spent)
    if left == 0:
        rows.pause(conn, m.id, kind="budget", reason="message budget spent", by=None, now=now)
        said = "paused: the message budget is spent; it can only end"
        event(conn, m.id, "paused", role, said, now=now)
        return [
            f"this message spent the budget: meeting {m.id} is paused and can only end "
            f'(`deskd meeting propose-end {m.id} --role {role} --resolution "…"`)'
        ]
    if left == m.consensus_at:
        said = f"consensus: {left} message{'s' if left != 1 else ''} left"
        event(conn, m.id, "consensus", role, f"{said}; one position each, or a decision", now=now)
        return [
            f"meeting {m.id} is in consensus: one position each (`deskd meeting position`), or --kind decision"
        ]
    return []


def position(ctx: DeskContext, meeting_id: int, role: str, body: str) -> Said:
    """State this attendee's one position (consensus only). Positions never spend the budget,
    so every attendee can state one; a position answers the meeting, settling its debts."""
    check_body(body)
    now = ctx.now
    with acting(ctx, meeting_id, lambda f: position_refusal(f, role)) as (conn, facts):
        message_id = say(conn, facts, role, "position", body, None, (), now=now)
        settled = msg_rows.settle_all_of(conn, meeting_id, role, reason="position stated", now=now)
        said = f"{role} stated a position (message {message_id})"
        event(conn, meeting_id, "position", role, said, now=now)
        facts = sync_state(conn, meeting_id)
    return _said(facts, message_id, settled)


# --- reading ----------------------------------------------------------------------------------


class MeetingUpdates(TypedDict):
    """What ``meeting updates`` prints: unread messages, events since the cursor, debts."""

    meeting_id: int
    state: str
    messages: list[JSON]
    events: list[JSON]
    owed_by_you: list[JSON]
    vote_owed: bool
    budget_left: int
    marked_read: bool


def updates(ctx: DeskContext, meeting_id: int, role: str, *, mark_read: bool) -> MeetingUpdates:
    """The role's unread messages of the meeting and the events since it last marked read.

    Like `inbox list`, the role's own session listing counts as being shown them; with
    ``mark_read`` they are read (items acked, event cursor moved). Reading is not a vote
    and pays no debt.
    """
    now = ctx.now
    conn = ctx.conn
    facts = swept(facts_of(conn, meeting_id), now=now)
    if facts.attendee(role) is None:
        refuse(attendee_refusal(facts, role))
    attendee = next(r for r in rows.attendees_of(conn, meeting_id) if r.role == role)
    items = rows.unread_meeting_items(conn, role, f"meeting:{meeting_id}")
    events = rows.events_after(conn, meeting_id, int(attendee.events_read_id))
    ids = [int(i.id) for i in items]
    if mark_read or (ctx.settings.role == role and ids):
        with ctx.write() as wconn:
            if mark_read:
                item_rows.ack_items(wconn, role, ids, now=now, by=role)
                if events:
                    rows.set_events_read(wconn, meeting_id, role, events[-1].id)
            else:
                item_rows.mark_shown(wconn, ids, session=None, now=now)

    status = status_view(facts, now=now)
    return {
        "meeting_id": meeting_id,
        "state": status["state"],
        "messages": [message_view(i) for i in items],
        "events": [shown(e, "id at kind role text", iso="at") for e in events],
        "owed_by_you": [o for o in status["owed"] if o["debtor"] == role],
        "vote_owed": facts.proposal is not None
        and role in facts.present
        and role not in facts.proposal.confirmed,
        "budget_left": status["budget_left"],
        "marked_read": mark_read,
    }
