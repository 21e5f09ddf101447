"""Meeting rules and records: bounded by construction, pure (time is an argument). The wakes a
meeting owes are in core/meeting_wakes.py.

A meeting is *waiting* until every invited role has checked in, then *active*; when the
remaining message budget reaches the consensus threshold it is in *consensus* (only one
position per attendee, or a decision); a message that exhausts the budget *pauses* it, as
does its idle deadline (evaluated by the tick, lesson 25) or an attendee; an open end
proposal makes it *closing*; the handshake *closes* it. The displayed state is derived here
from the facts (``state_of``); the store keeps a copy only to index live meetings.

Debts (lessons 34–36): while exactly two attendees are checked in, each message creates a
reply obligation for the other, due after the reply SLA; obligations are recorded, never a
reason to refuse a message; a vote to end settles the voter's own debts (there is nothing
left to answer), a position settles the poster's (it answers the meeting). Votes and
positions never spend the budget, so a meeting can always end.

Attendance (decided here, documented in docs/cli.md): a waiting meeting past its reply SLA
*escalates once*: the missing roles' invitations are re-armed with a new generation
(lesson 14: the ladder restarts at the bottom, labelled "overdue") and never again; after
that the ladder climbs to a person as for any wake.
"""

from __future__ import annotations

from typing import NamedTuple

from deskd.core.timeparse import human_age, iso_utc

KINDS: tuple[str, ...] = ("evidence", "question", "answer", "proposal", "decision")
"""What `meeting send --kind` accepts; a ``position`` has its own command."""
STATES: tuple[str, ...] = ("waiting", "active", "consensus", "closing", "paused", "closed")

DEFAULT_MAX_MESSAGES = 20
DEFAULT_CONSENSUS_AT = 4
DEFAULT_IDLE_S = 60 * 60
DEFAULT_REPLY_SLA_S = 10 * 60


class Meeting(NamedTuple):
    """A meeting row: its agenda, budget, clocks, pause and close. Its stored ``state`` is the
    store's index of live meetings; the rules derive the state shown (``state_of``)."""

    id: int
    agenda: str
    caller: str
    priority: str
    max_messages: int
    spent: int
    consensus_at: int
    idle_s: int
    reply_sla_s: int
    called_at: int
    last_activity_at: int
    wake_gen: int
    """The last generation handed out in this meeting (invitations, proposals, rejections)."""
    agenda_key: str = ""
    state: str = "waiting"
    escalated_at: int | None = None
    paused_kind: str | None = None
    pause_reason: str | None = None
    paused_at: int | None = None
    paused_by: str | None = None
    closed_at: int | None = None
    resolution: str | None = None

    @property
    def urgent(self) -> bool:
        return self.priority == "urgent"

    @property
    def budget_left(self) -> int:
        return max(0, self.max_messages - self.spent)

    @property
    def idle_deadline(self) -> int:
        return self.last_activity_at + self.idle_s * 1000


class Attendee(NamedTuple):
    role: str
    status: str
    """``invited`` (not checked in), ``present`` (checked in) or ``left``."""
    invite_gen: int = 1
    invited_at: int = 0
    checked_in_at: int | None = None
    meeting_id: int = 0
    invite_item_id: int | None = None
    left_at: int | None = None
    left_reason: str | None = None
    events_read_id: int = 0


class Obligation(NamedTuple):
    """An open reply obligation: ``debtor`` owes ``creditor`` a reply to ``message_id``, with
    the first 200 characters of the message."""

    id: int
    message_id: int
    debtor: str
    creditor: str
    due_at: int
    body: str = ""
    meeting_id: int = 0
    created_at: int = 0

    @property
    def excerpt(self) -> str:
        """The message's first line, cut at 80 characters."""
        first = self.body.strip().splitlines()[0] if (self.body or "").strip() else ""
        return first[:80] + ("…" if len(first) > 80 else "")


class Proposal(NamedTuple):
    """A proposal to end a meeting with a resolution, with the roles that confirmed it."""

    id: int
    proposer: str
    resolution: str
    generation: int
    opened_at: int
    confirmed: frozenset[str] = frozenset()
    """Read from the votes (the store leaves it empty)."""
    meeting_id: int = 0
    status: str = "open"
    closed_at: int | None = None
    rejected_by: str | None = None
    reject_reason: str | None = None
    reject_gen: int | None = None
    reject_item_id: int | None = None


class MeetingFacts(NamedTuple):
    """Everything the rules read about one meeting: the meeting, its attendees and what it owes."""

    meeting: Meeting
    attendees: tuple[Attendee, ...]
    obligations: tuple[Obligation, ...] = ()
    proposal: Proposal | None = None
    rejections: tuple[Proposal, ...] = ()
    """Rejected proposals whose notice the proposer has not read yet."""

    @property
    def present(self) -> tuple[str, ...]:
        return tuple(a.role for a in self.attendees if a.status == "present")

    @property
    def invited(self) -> tuple[str, ...]:
        return tuple(a.role for a in self.attendees if a.status == "invited")

    def attendee(self, role: str) -> Attendee | None:
        return next((a for a in self.attendees if a.role == role), None)


def normalize_body(text: str) -> str:
    """The duplicate-detection form of a message or an agenda: case and whitespace folded
    (lesson 21: only the key is normalized; the stored text keeps its lines)."""
    return " ".join(text.split()).casefold()


def underlying_state(facts: MeetingFacts) -> str:
    """waiting / active / consensus, ignoring pauses and an open end proposal."""
    if facts.invited:
        return "waiting"
    if facts.meeting.budget_left <= facts.meeting.consensus_at:
        return "consensus"
    return "active"


def state_of(facts: MeetingFacts) -> str:
    m = facts.meeting
    if m.closed_at is not None:
        return "closed"
    if facts.proposal is not None:
        return "closing"
    if m.paused_kind is not None:
        return "paused"
    return underlying_state(facts)


def is_inactive(facts: MeetingFacts) -> bool:
    """Closed, or paused with no handshake under way: raises no demand (lessons 5–7). An open
    end proposal or an unread rejection wakes even a paused meeting: it can still end."""
    m = facts.meeting
    handshake = facts.proposal is not None or bool(facts.rejections)
    return m.closed_at is not None or (m.paused_kind is not None and not handshake)


# --- what each action may do ---------------------------------------------------------------


def open_refusal(facts: MeetingFacts) -> str | None:
    m = facts.meeting
    if m.closed_at is not None:
        return f"meeting {m.id} is closed" + (f" ({m.resolution})" if m.resolution else "")
    return None


def attendee_refusal(facts: MeetingFacts, role: str, *, must_be_present: bool = True) -> str | None:
    """Why ``role`` cannot act in the meeting (None when it can)."""
    m = facts.meeting
    a = facts.attendee(role)
    if a is None:
        invited = ", ".join(x.role for x in facts.attendees)
        return f"{role!r} is not an attendee of meeting {m.id} (attendees: {invited})"
    if a.status == "left":
        return f"{role!r} left meeting {m.id}"
    if must_be_present and a.status != "present":
        return (
            f"{role!r} has not checked in to meeting {m.id}: "
            f"`deskd meeting check-in {m.id} --role {role}` first"
        )
    return None


def paused_refusal(facts: MeetingFacts, role: str) -> str | None:
    m = facts.meeting
    if m.paused_kind is None:
        return None
    if m.paused_kind == "budget":
        return (
            f"meeting {m.id} is paused: its message budget is spent; it can only end "
            f'(`deskd meeting propose-end {m.id} --role {role} --resolution "…"`)'
        )
    why = f" ({m.pause_reason})" if m.pause_reason else ""
    return (
        f"meeting {m.id} is paused ({m.paused_kind}){why}: "
        f"`deskd meeting resume {m.id} --role {role}` first"
    )


def standing_refusal(
    facts: MeetingFacts, role: str, *, paused: bool = True, must_be_present: bool = True
) -> str | None:
    """Why ``role`` cannot act in the meeting at all: it is closed, ``role`` is not (or no
    longer, or not yet) an attendee, or (with ``paused``) the meeting is paused."""
    return (
        open_refusal(facts)
        or attendee_refusal(facts, role, must_be_present=must_be_present)
        or (paused_refusal(facts, role) if paused else None)
    )


def speak_refusal(facts: MeetingFacts, role: str, kind: str) -> str | None:
    """Why ``role`` may not send a ``kind`` message now. Never because someone owes a reply
    (lesson 34): a refused insert is the only way a message is lost."""
    if kind not in KINDS:
        return f"kind {kind!r} is not a message kind (kinds: {', '.join(KINDS)})"
    refusal = standing_refusal(facts, role)
    if refusal:
        return refusal
    m = facts.meeting
    if underlying_state(facts) == "consensus" and kind != "decision":
        return (
            f"meeting {m.id} is in consensus ({m.budget_left} messages left): state your "
            f'position once (`deskd meeting position {m.id} --role {role} --body "…"`) '
            "or send --kind decision"
        )
    if not recipients_of(facts, role):
        return f"nobody else is in meeting {m.id}: end it with `deskd meeting propose-end`"
    return None


def position_refusal(facts: MeetingFacts, role: str) -> str | None:
    m = facts.meeting
    state = underlying_state(facts)
    return standing_refusal(facts, role) or (
        None
        if state == "consensus"
        else f"positions are for the consensus phase; meeting {m.id} is {state} "
        f"({m.budget_left - m.consensus_at} messages before consensus)"
    )


def propose_refusal(facts: MeetingFacts, role: str) -> str | None:
    p = facts.proposal
    return standing_refusal(facts, role, paused=False) or (
        None
        if p is None
        else f"meeting {facts.meeting.id} already has an open end proposal by {p.proposer} "
        f"({p.resolution!r}): confirm or reject it"
    )


def vote_refusal(facts: MeetingFacts, role: str) -> str | None:
    m = facts.meeting
    return standing_refusal(facts, role, paused=False) or (
        None
        if facts.proposal is not None
        else f"meeting {m.id} has no open end proposal "
        f'(`deskd meeting propose-end {m.id} --role {role} --resolution "…"`)'
    )


def resume_refusal(facts: MeetingFacts, role: str) -> str | None:
    m = facts.meeting
    # Only the budget pause cannot be resumed: it refuses as any other action in it would.
    budget = m.paused_kind == "budget"
    refusal = standing_refusal(facts, role, paused=budget, must_be_present=False)
    if refusal or m.paused_kind is not None:
        return refusal
    return f"meeting {m.id} is not paused (it is {state_of(facts)})"


def recipients_of(facts: MeetingFacts, sender: str) -> tuple[str, ...]:
    """Everyone still in the meeting but the sender (checked in or still invited)."""
    return tuple(sorted(a.role for a in facts.attendees if a.status != "left" and a.role != sender))


def obligation_debtor(facts: MeetingFacts, sender: str) -> str | None:
    """Who owes a reply to a message from ``sender``: the other attendee, while exactly two are
    checked in; nobody otherwise (three or more is a discussion, not a debt)."""
    present = facts.present
    if len(present) != 2 or sender not in present:
        return None
    return next(r for r in present if r != sender)


def closes(facts: MeetingFacts) -> bool:
    """True when every checked-in attendee (the active required ones) confirmed the open
    proposal. Leaving re-tallies, so nobody leaving can deadlock closure (lesson 36)."""
    p = facts.proposal
    return p is not None and all(r in p.confirmed for r in facts.present)


def votes_owed(facts: MeetingFacts) -> tuple[str, ...]:
    p = facts.proposal
    return () if p is None else tuple(r for r in facts.present if r not in p.confirmed)


class Sweep(NamedTuple):
    """Time-based transitions due at ``now`` (the tick applies them; lesson 25)."""

    meeting_id: int
    idle_pause: bool = False
    escalate: tuple[str, ...] = ()
    generation: int = 0

    @property
    def empty(self) -> bool:
        return not self.idle_pause and not self.escalate


def due_sweep(facts: MeetingFacts, *, now: int) -> Sweep:
    m = facts.meeting
    if m.closed_at is not None or m.paused_kind is not None:
        return Sweep(meeting_id=m.id)
    # A meeting whose end is being voted on is not idle: its vote wakes are climbing.
    if facts.proposal is None and now >= m.idle_deadline:
        return Sweep(meeting_id=m.id, idle_pause=True)
    missing = facts.invited
    if missing and m.escalated_at is None and now >= m.called_at + m.reply_sla_s * 1000:
        return Sweep(meeting_id=m.id, escalate=missing, generation=m.wake_gen + 1)
    return Sweep(meeting_id=m.id)


def swept(facts: MeetingFacts, *, now: int) -> MeetingFacts:
    """The facts as they are once ``due_sweep`` is applied: a dry run computes the same wakes
    as the tick that applies it."""
    sweep = due_sweep(facts, now=now)
    m = facts.meeting
    if sweep.idle_pause:
        idle = human_age(m.idle_s)
        meeting = m._replace(paused_kind="idle", pause_reason=f"idle for {idle}", paused_at=now)
        return facts._replace(meeting=meeting)
    if sweep.escalate:
        meeting = m._replace(escalated_at=now, wake_gen=sweep.generation)
        attendees = tuple(
            a._replace(invite_gen=sweep.generation) if a.role in sweep.escalate else a
            for a in facts.attendees
        )
        return facts._replace(meeting=meeting, attendees=attendees)
    return facts


def waiting_on(facts: MeetingFacts, *, now: int) -> list[tuple[str, str]]:
    """(role, why) for everyone the meeting is waiting on, in the order they block it."""
    m = facts.meeting
    if m.closed_at is not None:
        return []
    late = " (overdue: escalated)" if m.escalated_at is not None else ""
    out = [
        (a.role, f"not checked in; invited {human_age((now - a.invited_at) / 1000)} ago{late}")
        for a in facts.attendees
        if a.status == "invited"
    ]
    p = facts.proposal
    if p is not None:
        out += [(r, f"vote owed on ending (proposed by {p.proposer})") for r in votes_owed(facts)]
    out += [
        (r.proposer, f"unread: {r.rejected_by} rejected ending ({r.reject_reason or ''})")
        for r in facts.rejections
    ]
    paused = " — paused, raises nothing" if m.paused_kind is not None else ""
    for o in sorted(facts.obligations, key=lambda o: (o.due_at, o.id)):
        when = "overdue since" if o.due_at <= now else "due"
        why = f"reply owed to {o.creditor} for message #{o.message_id}, {when} {iso_utc(o.due_at)}"
        out.append((o.debtor, why + paused))
    return out
