"""A meeting's facts (core/meetings.py's records) read from its rows: one meeting by id, or
every open one in a fixed number of queries. No sweep is applied here: the use cases apply
it (``lifecycle.load``) and the views show it (``core.meetings.swept``).

The store returns the rules' records; a proposal's confirmations, read from the votes, are
added here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deskd.core.meetings import Attendee, MeetingFacts, Obligation, Proposal
from deskd.errors import UnknownMeeting
from deskd.store import meeting_messages as msg_rows
from deskd.store import meetings as rows

if TYPE_CHECKING:
    from deskd.store.dialect import Connection


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
        meeting=row,
        attendees=tuple(rows.attendees_of(conn, meeting_id)),
        obligations=tuple(msg_rows.open_obligations(conn, meeting_id)),
        proposal=proposal._replace(confirmed=frozenset(confirmed)) if proposal else None,
        rejections=tuple(msg_rows.unread_rejections(conn, meeting_id)),
    )


def live_facts(conn: Connection) -> list[MeetingFacts]:
    """Every open (not closed) meeting's facts, in a fixed number of queries."""
    meetings = rows.live_meetings(conn)
    if not meetings:
        return []
    attendees: dict[int, list[Attendee]] = {}
    for a in rows.live_attendees(conn):
        attendees.setdefault(int(a.meeting_id), []).append(a)
    obligations: dict[int, list[Obligation]] = {}
    for o in msg_rows.live_open_obligations(conn):
        obligations.setdefault(int(o.meeting_id), []).append(o)
    proposals = msg_rows.live_open_proposals(conn)
    confirmed: dict[int, list[str]] = {}
    for v in msg_rows.confirmations(conn, [int(p.id) for p in proposals]):
        confirmed.setdefault(int(v.proposal_id), []).append(str(v.role))
    by_meeting = {
        int(p.meeting_id): p._replace(confirmed=frozenset(confirmed.get(int(p.id), [])))
        for p in proposals
    }
    rejections: dict[int, list[Proposal]] = {}
    for r in msg_rows.live_unread_rejections(conn):
        rejections.setdefault(int(r.meeting_id), []).append(r)
    return [
        MeetingFacts(
            meeting=m,
            attendees=tuple(attendees.get(int(m.id), [])),
            obligations=tuple(obligations.get(int(m.id), [])),
            proposal=by_meeting.get(int(m.id)),
            rejections=tuple(rejections.get(int(m.id), [])),
        )
        for m in meetings
    ]
