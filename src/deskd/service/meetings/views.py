"""Meetings as the planner and the CLI see them: facts from rows, wakes, status, updates.

``load_meeting_views`` is the meetings part of the tick's snapshot. It applies the tick's
sweep in memory (``core.meetings.swept``), so a dry run computes the same wakes as the tick
that pauses an idle meeting or escalates a late attendance (lesson 25).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NotRequired, TypedDict

from deskd.config.desk import Desk
from deskd.core.meeting_owed import Obligation, Proposal, Rejection
from deskd.core.meetings import (
    Attendee,
    Meeting,
    MeetingFacts,
    is_inactive,
    state_of,
    swept,
    waiting_on,
)
from deskd.core.timeparse import iso_utc
from deskd.errors import InvalidValue, UnknownMeeting
from deskd.store import meeting_messages as msg_rows
from deskd.store import meetings as rows
from deskd.store.records.inbox import Item
from deskd.store.records.meetings import AttendeeRow, MeetingRow, ObligationRow, ProposalRow

if TYPE_CHECKING:
    from deskd.core.meeting_wakes import MeetingWake
    from deskd.core.records import Snapshot
    from deskd.store.dialect import Connection


def load_meeting_views(
    conn: Connection, desk: Desk, *, now: int
) -> tuple[tuple[MeetingWake, ...], frozenset[int], frozenset[int]]:
    """(wakes owed to roles, paused-or-closed meeting ids, item ids whose meeting is not open)."""
    from deskd.core.meeting_wakes import wakes  # the tick's and the board's: not `meeting send`'s

    facts = [swept(f, now=now) for f in live_facts(conn)]
    owed: list[MeetingWake] = []
    inactive: set[int] = set()
    live_ids = {f.meeting.id for f in facts}
    for f in facts:
        if is_inactive(f):
            inactive.add(f.meeting.id)
        else:
            owed.extend(wakes(f, now=now))
    dormant: set[int] = set()
    for item in rows.all_unread_meeting_items(conn):
        meeting_id = meeting_of_ref(item.ref)
        if _handshake_item(item.message_id):
            # An invitation, an end proposal or a rejection is owed through its `meeting`
            # wake (resolved by checking in or voting, not by an ack): one wake, not two.
            dormant.add(int(item.id))
        if meeting_id is None or meeting_id not in live_ids or meeting_id in inactive:
            # A closed (or vanished) meeting's unread items are history, not an alarm.
            dormant.add(int(item.id))
            if meeting_id is not None and meeting_id not in live_ids:
                inactive.add(meeting_id)
    for key in rows.pending_meeting_attempt_keys(conn):
        meeting_id = _int(key.split(":")[1]) if key.count(":") >= 2 else None
        if meeting_id is not None and meeting_id not in live_ids:
            inactive.add(meeting_id)  # closed since the last tick: withdrawn, not resolved
    return tuple(owed), frozenset(inactive), frozenset(dormant)


def _handshake_item(message_id: str | None) -> bool:
    key = (message_id or "").rsplit(":", 1)[-1]
    return key == "invite" or (key[:1] in ("p", "r") and key[1:].isdigit())


def meeting_of_ref(ref: str | None) -> int | None:
    if not ref or not ref.startswith("meeting:"):
        return None
    return _int(ref.split(":", 1)[1])


def _int(text: str) -> int | None:
    return int(text) if text.isdigit() else None


# --- rows → facts -----------------------------------------------------------------------------


def _meeting(r: MeetingRow) -> Meeting:
    return Meeting(
        id=int(r.id),
        agenda=str(r.agenda),
        caller=str(r.caller),
        urgent=r.priority == "urgent",
        max_messages=int(r.max_messages),
        spent=int(r.spent),
        consensus_at=int(r.consensus_at),
        idle_s=int(r.idle_s),
        reply_sla_s=int(r.reply_sla_s),
        called_at=int(r.called_at),
        last_activity_at=int(r.last_activity_at),
        wake_gen=int(r.wake_gen),
        escalated_at=r.escalated_at,
        paused_kind=r.paused_kind,
        pause_reason=r.pause_reason,
        paused_at=r.paused_at,
        closed_at=r.closed_at,
        resolution=r.resolution,
    )


def _attendee(r: AttendeeRow) -> Attendee:
    return Attendee(
        role=str(r.role),
        status=str(r.status),
        invite_gen=int(r.invite_gen),
        invited_at=int(r.invited_at),
        checked_in_at=r.checked_in_at,
    )


def _obligation(r: ObligationRow) -> Obligation:
    body = str(r.body or "")
    first = body.strip().splitlines()[0] if body.strip() else ""
    return Obligation(
        id=int(r.id),
        message_id=int(r.message_id),
        debtor=str(r.debtor),
        creditor=str(r.creditor),
        due_at=int(r.due_at),
        excerpt=first[:80] + ("…" if len(first) > 80 else ""),
    )


def _proposal(r: ProposalRow, confirmed: Iterable[str]) -> Proposal:
    return Proposal(
        id=int(r.id),
        proposer=str(r.proposer),
        resolution=str(r.resolution),
        generation=int(r.generation),
        opened_at=int(r.opened_at),
        confirmed=frozenset(confirmed),
    )


def _rejection(r: ProposalRow) -> Rejection:
    return Rejection(
        proposal_id=int(r.id),
        proposer=str(r.proposer),
        by=str(r.rejected_by),
        reason=str(r.reject_reason or ""),
        generation=int(r.reject_gen or 0),
        at=int(r.closed_at or 0),
    )


def facts_of(conn: Connection, meeting_id: int) -> MeetingFacts:
    """One meeting's facts as stored (no sweep applied); refuses an unknown id."""
    row = rows.get_meeting(conn, meeting_id)
    if row is None:
        raise UnknownMeeting(meeting_id)
    proposal = msg_rows.open_proposal(conn, meeting_id)
    confirmed = (
        [str(v.role) for v in msg_rows.confirmations(conn, [int(proposal.id)])]
        if proposal is not None
        else []
    )
    return MeetingFacts(
        meeting=_meeting(row),
        attendees=tuple(_attendee(a) for a in rows.attendees_of(conn, meeting_id)),
        obligations=tuple(_obligation(o) for o in msg_rows.open_obligations(conn, meeting_id)),
        proposal=_proposal(proposal, confirmed) if proposal is not None else None,
        rejections=tuple(_rejection(r) for r in msg_rows.unread_rejections(conn, meeting_id)),
    )


def live_facts(conn: Connection) -> list[MeetingFacts]:
    """Every open (not closed) meeting's facts, in a fixed number of queries."""
    meetings = rows.live_meetings(conn)
    if not meetings:
        return []
    attendees: dict[int, list[Attendee]] = {}
    for a in rows.live_attendees(conn):
        attendees.setdefault(int(a.meeting_id), []).append(_attendee(a))
    obligations: dict[int, list[Obligation]] = {}
    for o in msg_rows.live_open_obligations(conn):
        obligations.setdefault(int(o.meeting_id), []).append(_obligation(o))
    proposals = msg_rows.live_open_proposals(conn)
    confirmed: dict[int, list[str]] = {}
    for v in msg_rows.confirmations(conn, [int(p.id) for p in proposals]):
        confirmed.setdefault(int(v.proposal_id), []).append(str(v.role))
    by_meeting = {int(p.meeting_id): _proposal(p, confirmed.get(int(p.id), [])) for p in proposals}
    rejections: dict[int, list[Rejection]] = {}
    for r in msg_rows.live_unread_rejections(conn):
        rejections.setdefault(int(r.meeting_id), []).append(_rejection(r))
    return [
        MeetingFacts(
            meeting=_meeting(m),
            attendees=tuple(attendees.get(int(m.id), [])),
            obligations=tuple(obligations.get(int(m.id), [])),
            proposal=by_meeting.get(int(m.id)),
            rejections=tuple(rejections.get(int(m.id), [])),
        )
        for m in meetings
    ]


def parse_meeting_id(text: str | int) -> int:
    from deskd.ids import MAX_INT, expected, parse_int, shown

    value = str(text).strip().removeprefix("meeting:")
    try:
        return parse_int(value, "meeting")
    except InvalidValue:
        raise InvalidValue(
            "meeting", shown(str(text)), f"{expected(1, MAX_INT)} (see `deskd meeting list`)"
        ) from None


# --- views ---------------------------------------------------------------------------------


class Waiting(TypedDict):
    role: str
    why: str


class Outcome(TypedDict):
    """What a meeting command answers: the meeting, its state, who it waits on."""

    meeting_id: int
    state: str
    waiting_on: list[Waiting]
    proposal_id: NotRequired[int]


class AttendeeView(TypedDict):
    role: str
    status: str
    checked_in_at: str | None


class Owed(TypedDict):
    """A reply owed in the meeting (``meeting status``'s ``owed``)."""

    message_id: int
    debtor: str
    creditor: str
    due_at: str | None
    overdue: bool


class PauseView(TypedDict):
    kind: str | None
    reason: str | None
    at: str | None


class ProposalView(TypedDict):
    id: int
    proposer: str
    resolution: str
    confirmed: list[str]


class MeetingStatus(TypedDict):
    """`deskd meeting status`."""

    meeting_id: int
    agenda: str
    caller: str
    priority: str
    state: str
    attendees: list[AttendeeView]
    waiting_on: list[Waiting]
    owed: list[Owed]
    budget_left: int
    max_messages: int
    consensus_at: int
    reply_sla_s: int
    idle_s: int
    idle_deadline: str | None
    paused: PauseView | None
    proposal: ProposalView | None
    called_at: str | None
    closed_at: str | None
    resolution: str | None


class MeetingSummary(TypedDict):
    """One meeting of `deskd meeting list`."""

    meeting_id: int
    agenda: str
    caller: str
    state: str
    attendees: list[str]
    waiting_on: list[str]
    budget_left: int
    called_at: str | None
    closed_at: str | None


class MeetingSource(TypedDict):
    """A meeting wake owed by a role (`deskd wake sources`), with how to settle it."""

    meeting_id: int
    kind: str
    key: str
    generation: int
    since: str | None
    owed: list[str]
    manage: str


def waiting_view(facts: MeetingFacts, *, now: int) -> list[Waiting]:
    return [{"role": role, "why": why} for role, why in waiting_on(facts, now=now)]


def outcome_view(facts: MeetingFacts, *, now: int, proposal_id: int | None = None) -> Outcome:
    """What a meeting command answers: the meeting, its state, who it waits on, and the
    proposal a vote was about."""
    out: Outcome = {
        "meeting_id": facts.meeting.id,
        "state": state_of(facts),
        "waiting_on": waiting_view(facts, now=now),
    }
    if proposal_id is not None:
        out["proposal_id"] = proposal_id
    return out


def status_view(facts: MeetingFacts, *, now: int) -> MeetingStatus:
    """`deskd meeting status`: who is waited on and why, debts, budget, the open proposal."""
    m = facts.meeting
    p = facts.proposal
    return {
        "meeting_id": m.id,
        "agenda": m.agenda,
        "caller": m.caller,
        "priority": "urgent" if m.urgent else "normal",
        "state": state_of(facts),
        "attendees": [
            {
                "role": a.role,
                "status": a.status,
                "checked_in_at": iso_utc(a.checked_in_at),
            }
            for a in facts.attendees
        ],
        "waiting_on": waiting_view(facts, now=now),
        "owed": [
            {
                "message_id": o.message_id,
                "debtor": o.debtor,
                "creditor": o.creditor,
                "due_at": iso_utc(o.due_at),
                "overdue": o.due_at <= now,
            }
            for o in facts.obligations
        ],
        "budget_left": m.budget_left,
        "max_messages": m.max_messages,
        "consensus_at": m.consensus_at,
        "reply_sla_s": m.reply_sla_s,
        "idle_s": m.idle_s,
        "idle_deadline": iso_utc(m.idle_deadline) if m.closed_at is None else None,
        "paused": (
            {"kind": m.paused_kind, "reason": m.pause_reason, "at": iso_utc(m.paused_at)}
            if m.paused_kind
            else None
        ),
        "proposal": (
            {
                "id": p.id,
                "proposer": p.proposer,
                "resolution": p.resolution,
                "confirmed": sorted(p.confirmed),
            }
            if p is not None
            else None
        ),
        "called_at": iso_utc(m.called_at),
        "closed_at": iso_utc(m.closed_at),
        "resolution": m.resolution,
    }


def list_view(facts: MeetingFacts, *, now: int) -> MeetingSummary:
    m = facts.meeting
    return {
        "meeting_id": m.id,
        "agenda": m.agenda,
        "caller": m.caller,
        "state": state_of(facts),
        "attendees": [a.role for a in facts.attendees],
        "waiting_on": sorted({role for role, _ in waiting_on(facts, now=now)}),
        "budget_left": m.budget_left,
        "called_at": iso_utc(m.called_at),
        "closed_at": iso_utc(m.closed_at),
    }


# ``from`` is a keyword: the functional form.
MessageView = TypedDict(
    "MessageView",
    {
        "item_id": int,
        "message_id": int | None,
        "from": str | None,
        "title": str,
        "body": str,
        "at": str | None,
    },
)
"""One unread meeting item as ``meeting updates`` shows it."""


def message_view(item: Item) -> MessageView:
    """One unread meeting item as `meeting updates` shows it (with the id to --reply-to)."""
    key = str(item.message_id or "").rsplit(":", 1)[-1]
    return {
        "item_id": int(item.id),
        "message_id": int(key) if key.isdigit() else None,
        "from": item.sender,
        "title": item.title,
        "body": item.body,
        "at": iso_utc(int(item.enqueued_at)),
    }


def meeting_status(conn: Connection, meeting_id: int, *, now: int) -> MeetingStatus:
    """`deskd meeting status`, with any due sweep shown as the tick will apply it."""
    return status_view(swept(facts_of(conn, meeting_id), now=now), now=now)


def meeting_list(
    conn: Connection, *, include_closed: bool, role: str | None, now: int, limit: int = 200
) -> list[MeetingSummary]:
    found = rows.list_meetings(conn, include_closed=include_closed, role=role, limit=limit)
    return [list_view(swept(facts_of(conn, int(r.id)), now=now), now=now) for r in found]


def meeting_sources(snapshot: Snapshot, role: str) -> list[MeetingSource]:
    """The meeting wakes owed by ``role`` (`deskd wake sources`), with how to settle each."""
    out: list[MeetingSource] = []
    for w in snapshot.meeting_wakes:
        if w.role != role or w.meeting_id in snapshot.inactive_meetings:
            continue
        key = (
            f"meeting:{w.meeting_id}:{w.role}:{w.generation}"
            if w.kind == "meeting"
            else f"owed_reply:{w.meeting_id}:{w.role}"
        )
        out.append(
            {
                "meeting_id": w.meeting_id,
                "kind": w.kind,
                "key": key,
                "generation": w.generation,
                "since": iso_utc(w.since),
                "owed": list(w.lines),
                "manage": f"deskd meeting status {w.meeting_id}",
            }
        )
    return out
