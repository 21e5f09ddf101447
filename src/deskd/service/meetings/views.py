"""Meetings as the planner and the CLI see them: wakes, status, lists, what a command
answers (the facts they are built from are read in facts.py).

``load_meeting_views`` is the meetings part of the tick's snapshot. It applies the tick's
sweep in memory (``core.meetings.swept``), so a dry run computes the same wakes as the tick
that pauses an idle meeting or escalates a late attendance (lesson 25).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deskd.config.desk import Desk
from deskd.core.meetings import MeetingFacts, is_inactive, state_of, swept, waiting_on
from deskd.core.timeparse import iso_utc
from deskd.errors import InvalidValue
from deskd.service.meetings.facts import facts_of, live_facts
from deskd.store import meetings as rows
from deskd.store.records import JSON, shown
from deskd.store.records.inbox import Item

if TYPE_CHECKING:
    from deskd.core.meeting_wakes import MeetingWake
    from deskd.core.meetings import Obligation
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


def parse_meeting_id(text: str | int) -> int:
    from deskd.ids import MAX_INT, expected, parse_int, shown

    value = str(text).strip().removeprefix("meeting:")
    try:
        return parse_int(value, "meeting")
    except InvalidValue:
        raise InvalidValue(
            "meeting", shown(str(text)), f"{expected(1, MAX_INT)} (see `deskd meeting list`)"
        ) from None


Outcome = JSON
"""What a meeting command answers: the meeting, its state, who it waits on (``outcome_view``)."""


def waiting_view(facts: MeetingFacts, *, now: int) -> list[JSON]:
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


def owed_view(o: Obligation, *, now: int) -> JSON:
    """A reply owed in the meeting (``meeting status``'s ``owed``)."""
    return shown(o, "message_id debtor creditor due_at", iso="due_at") | {
        "overdue": o.due_at <= now
    }


def status_view(facts: MeetingFacts, *, now: int) -> JSON:
    """`deskd meeting status`: who is waited on and why, debts, budget, the open proposal."""
    m = facts.meeting
    p = facts.proposal
    return {
        "meeting_id": m.id,
        **shown(m, "agenda caller"),
        "priority": "urgent" if m.urgent else "normal",
        "state": state_of(facts),
        "attendees": [
            shown(a, "role status checked_in_at", iso="checked_in_at") for a in facts.attendees
        ],
        "waiting_on": waiting_view(facts, now=now),
        "owed": [owed_view(o, now=now) for o in facts.obligations],
        **shown(m, "budget_left max_messages consensus_at reply_sla_s idle_s"),
        "idle_deadline": iso_utc(m.idle_deadline) if m.closed_at is None else None,
        "paused": (
            {"kind": m.paused_kind, "reason": m.pause_reason, "at": iso_utc(m.paused_at)}
            if m.paused_kind
            else None
        ),
        "proposal": (
            shown(p, "id proposer resolution") | {"confirmed": sorted(p.confirmed)}
            if p is not None
            else None
        ),
        **shown(m, "called_at closed_at resolution", iso="called_at closed_at"),
    }


def list_view(facts: MeetingFacts, *, now: int) -> JSON:
    m = facts.meeting
    return {
        "meeting_id": m.id,
        **shown(m, "agenda caller"),
        "state": state_of(facts),
        "attendees": [a.role for a in facts.attendees],
        "waiting_on": sorted({role for role, _ in waiting_on(facts, now=now)}),
        **shown(m, "budget_left called_at closed_at", iso="called_at closed_at"),
    }


def message_view(item: Item) -> JSON:
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


def meeting_status(conn: Connection, meeting_id: int, *, now: int) -> JSON:
    """`deskd meeting status`, with any due sweep shown as the tick will apply it."""
    return status_view(swept(facts_of(conn, meeting_id), now=now), now=now)


def meeting_list(
    conn: Connection, *, include_closed: bool, role: str | None, now: int, limit: int = 200
) -> list[JSON]:
    found = rows.list_meetings(conn, include_closed=include_closed, role=role, limit=limit)
    return [list_view(swept(facts_of(conn, int(r.id)), now=now), now=now) for r in found]


def meeting_sources(snapshot: Snapshot, role: str) -> list[JSON]:
    """The meeting wakes owed by ``role`` (`deskd wake sources`), with how to settle each."""
    out: list[JSON] = []
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
