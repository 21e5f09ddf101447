"""A meeting's facts (core/meetings.py's records) read from its rows: one meeting by id, or
every open one in a fixed number of queries. No sweep is applied here: the use cases apply
it (``lifecycle.load``) and the views show it (``core.meetings.swept``).

The rules' records keep their rows' field names: each is built from the row's fields of the
same name, plus what it derives.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from deskd.core.meeting_owed import Obligation, Proposal, Rejection
from deskd.core.meetings import Attendee, Meeting, MeetingFacts
from deskd.errors import UnknownMeeting
from deskd.store import meeting_messages as msg_rows
from deskd.store import meetings as rows
from deskd.store.query import same_fields

if TYPE_CHECKING:
    from deskd.store.dialect import Connection
    from deskd.store.records.meetings import AttendeeRow, MeetingRow, ObligationRow, ProposalRow


def _meeting(r: MeetingRow) -> Meeting:
    return Meeting(
        urgent=r.priority == "urgent", **same_fields(Meeting._fields, r, but=("urgent",))
    )


def _attendee(r: AttendeeRow) -> Attendee:
    return Attendee(**same_fields(Attendee._fields, r))


def _obligation(r: ObligationRow) -> Obligation:
    first = r.body.strip().splitlines()[0] if (r.body or "").strip() else ""
    excerpt = first[:80] + ("…" if len(first) > 80 else "")
    return Obligation(excerpt=excerpt, **same_fields(Obligation._fields, r, but=("excerpt",)))


def _proposal(r: ProposalRow, confirmed: Iterable[str]) -> Proposal:
    same = same_fields(Proposal._fields, r, but=("confirmed",))
    return Proposal(confirmed=frozenset(confirmed), **same)


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
