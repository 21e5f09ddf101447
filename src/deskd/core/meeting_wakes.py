"""What a meeting owes, and to whom: the wakes it raises (pure). Who it is waiting on is
``waiting_on`` in core/meetings.py, which the meeting commands read without this record.

Labels say exactly what is owed and where (lesson 17): "check in", "your vote closes it",
"X rejected your proposal: why", "you owe N replies". A paused meeting's debts raise nothing
(lesson 6); a closed or paused meeting raises no wake at all unless its end handshake is under
way (a paused meeting can still end).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from deskd.core.meetings import Meeting, MeetingFacts, is_inactive, votes_owed
from deskd.core.timeparse import human_age, iso_utc
from deskd.quoting import plural, quoted

if TYPE_CHECKING:
    from collections.abc import Callable

    from deskd.core.meetings import Obligation


# Defined with its rules; core/records.py re-exports it for the planner.
class MeetingWake(NamedTuple):
    """One meeting-derived reason to wake one role (owned by core/meetings.py): an invitation
    not checked in, a termination vote owed, or an overdue reply obligation."""

    meeting_id: int
    role: str
    kind: str
    """``meeting`` (check in / vote) or ``owed_reply``."""
    generation: int
    since: int
    urgent: bool
    lines: tuple[str, ...]
    due_at: int | None = None


def _title(m: Meeting) -> str:
    return f"meeting {m.id} ({quoted(m.agenda)})"


def wakes(facts: MeetingFacts, *, now: int) -> tuple[MeetingWake, ...]:
    """Every wake the (swept) meeting owes: invitations, votes, rejection notices, overdue
    replies. None for an inactive meeting, and no owed replies while it is paused: an
    unpayable debt raises nothing (lesson 6)."""
    m = facts.meeting
    if is_inactive(facts):
        return ()
    sla = m.reply_sla_s * 1000
    out: list[MeetingWake] = []

    def wake(role: str, kind: str, gen: int, since: int, due: int | None, *lines: str) -> None:
        out.append(MeetingWake(m.id, role, kind, gen, since, m.urgent, lines, due))

    others = ", ".join(a.role for a in facts.attendees if a.role != m.caller)
    for a in facts.attendees:
        if a.status != "invited" or m.paused_kind is not None:
            continue
        how = (
            f"Check in with `deskd meeting check-in {m.id} --role {a.role}`, then read "
            f"`deskd meeting updates {m.id} --role {a.role}`; if you cannot attend, "
            f'`deskd meeting leave {m.id} --role {a.role} --reason "…"`.'
        )
        if m.escalated_at is not None and a.invite_gen > 1:
            since = m.escalated_at
            waited = human_age((now - m.called_at) / 1000)
            ask = (
                f"Overdue: {m.caller} called {_title(m)} {waited} ago and it cannot start "
                "until you check in."
            )
        else:
            since = m.called_at
            ask = (
                f"{m.caller} invites you to {_title(m)}"
                + (" — urgent" if m.urgent else "")
                + f". Attendees: {m.caller} (caller), {others}; it starts when all check in."
            )
        wake(a.role, "meeting", a.invite_gen, since, since + sla, ask, how)
    p = facts.proposal
    if p is not None:
        owed = votes_owed(facts)
        for role in owed:
            rest = ", ".join(r for r in owed if r != role)
            closes_it = "Your vote closes it" + (f" once {rest} also confirm." if rest else ".")
            ask = f"{p.proposer} proposes to end {_title(m)}: {quoted(p.resolution)}"
            how = (
                f"Confirm with `deskd meeting confirm-end {m.id} --role {role}` or object with "
                f'`deskd meeting reject-end {m.id} --role {role} --reason "…"`.'
            )
            wake(role, "meeting", p.generation, p.opened_at, p.opened_at + sla, ask, closes_it, how)
    for r in facts.rejections:
        if r.proposer not in facts.present:
            continue  # it left: nobody to tell
        why = quoted(r.reject_reason or "")
        said = f"{r.rejected_by} rejected your proposal to end {_title(m)}: {why}"
        how = (
            f"Read it with `deskd meeting updates {m.id} --role {r.proposer} --mark-read`; "
            "answer with `deskd meeting send`, or propose again with a new resolution."
        )
        at = r.closed_at or 0
        wake(r.proposer, "meeting", r.reject_gen or 0, at, at + sla, said, how)
    if m.paused_kind is None:
        _owed_replies(facts, wake, now=now)
    return tuple(out)


def _owed_replies(facts: MeetingFacts, wake: Callable[..., None], *, now: int) -> None:
    m = facts.meeting
    by_debtor: dict[str, list[Obligation]] = {}
    for o in facts.obligations:
        if o.due_at <= now:
            by_debtor.setdefault(o.debtor, []).append(o)
    for debtor in sorted(by_debtor):
        owed = sorted(by_debtor[debtor], key=lambda o: (o.due_at, o.message_id))
        lines = [f"You owe {plural(len(owed), 'reply', 'replies')} in {_title(m)}:"]
        lines += [
            f"- to {o.creditor}: message #{o.message_id} {quoted(o.excerpt)} (due {iso_utc(o.due_at)})"
            for o in owed
        ]
        ids = " ".join(str(o.message_id) for o in owed)
        lines.append(
            f"Reply with `deskd meeting send {m.id} --role {debtor} --reply-to "
            f'{owed[0].message_id} --body "…"` (`--resolves {ids}` settles several).'
        )
        # Once a wake landed, give the reply one more SLA before climbing on.
        due = owed[0].due_at + m.reply_sla_s * 1000
        wake(debtor, "owed_reply", 0, owed[0].due_at, due, *lines)
