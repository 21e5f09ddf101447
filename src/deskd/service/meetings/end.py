"""The termination handshake: propose-end, confirm-end, reject-end.

One open proposal per meeting; the proposer confirms automatically; every other checked-in
attendee owes a vote, woken with a new generation ("your vote closes it", lessons 14, 17).
The meeting closes when every checked-in attendee confirmed (leaving re-tallies). A rejection
wakes the proposer and says why (lesson 38). Votes never spend the budget and work in a
paused meeting, so every meeting can end (lesson 36). An ack of the wake is not a vote
(lesson 37): only these commands record one.
"""

from __future__ import annotations

from deskd.core.meetings import propose_refusal, vote_refusal
from deskd.service.desk.context import DeskContext
from deskd.service.meetings.facts import facts_of
from deskd.service.meetings.lifecycle import (
    acting,
    close_if_agreed,
    event,
    meeting_item,
    read_items,
    read_notices,
    say_why,
    sync_state,
)
from deskd.service.meetings.views import Outcome, outcome_view
from deskd.store import meeting_messages as msg_rows
from deskd.store import meetings as rows
from deskd.store.dialect import Connection


def _settle_voter(conn: Connection, meeting_id: int, role: str, *, now: int) -> None:
    # A vote to end says "nothing more from me": the voter's own debts are settled by it.
    # Its items stay as they are: a vote is not proof that the role read them.
    msg_rows.settle_all_of(conn, meeting_id, role, reason="voted to end", now=now)


def propose_end(ctx: DeskContext, meeting_id: int, role: str, resolution: str) -> Outcome:
    say_why("--resolution", resolution, "say what was decided")
    now = ctx.now
    with acting(ctx, meeting_id, lambda f: propose_refusal(f, role)) as (conn, facts):
        read_notices(conn, facts, role, now=now)
        generation = rows.next_generation(conn, meeting_id)
        proposal_id = msg_rows.insert_proposal(
            conn,
            meeting_id=meeting_id,
            proposer=role,
            resolution=resolution.strip(),
            generation=generation,
            now=now,
        )
        assert proposal_id is not None  # propose_refusal saw no open proposal in this txn
        msg_rows.insert_vote(
            conn, proposal_id=proposal_id, role=role, vote="confirm", reason=None, now=now
        )
        _settle_voter(conn, meeting_id, role, now=now)
        rows.touch(conn, meeting_id, now=now)
        said = f"{role} proposes to end it: {resolution.strip()}"
        event(conn, meeting_id, "proposed_end", role, said, now=now)
        facts = facts_of(conn, meeting_id)
        for voter in facts.present:
            if voter == role:
                continue
            meeting_item(
                conn,
                facts,
                to=voter,
                sender=role,
                title=said,
                body=(
                    f"Confirm: deskd meeting confirm-end {meeting_id} --role {voter}\n"
                    f'Reject:  deskd meeting reject-end {meeting_id} --role {voter} --reason "…"'
                ),
                key=f"p{proposal_id}",
                now=now,
            )
        close_if_agreed(conn, facts, now=now)
        facts = sync_state(conn, meeting_id)
    return outcome_view(facts, now=now, proposal_id=proposal_id)


def confirm_end(ctx: DeskContext, meeting_id: int, role: str) -> Outcome:
    now = ctx.now
    with acting(ctx, meeting_id, lambda f: vote_refusal(f, role)) as (conn, facts):
        assert facts.proposal is not None
        proposal_id = facts.proposal.id
        if msg_rows.insert_vote(
            conn, proposal_id=proposal_id, role=role, vote="confirm", reason=None, now=now
        ):
            read_items(conn, role, [f"p{proposal_id}"], meeting_id=meeting_id, now=now)
            _settle_voter(conn, meeting_id, role, now=now)
            rows.touch(conn, meeting_id, now=now)
            event(conn, meeting_id, "confirmed_end", role, f"{role} confirms ending it", now=now)
            close_if_agreed(conn, facts_of(conn, meeting_id), now=now)
        facts = sync_state(conn, meeting_id)
    return outcome_view(facts, now=now, proposal_id=proposal_id)


def reject_end(ctx: DeskContext, meeting_id: int, role: str, reason: str) -> Outcome:
    """Reject the open proposal: it is finished, the meeting goes on (or back to its pause),
    and the proposer is woken with the reason. A proposer rejecting its own withdraws it."""
    say_why("--reason", reason, "say why the meeting should go on")
    now = ctx.now
    with acting(ctx, meeting_id, lambda f: vote_refusal(f, role)) as (conn, facts):
        p = facts.proposal
        assert p is not None
        rows.touch(conn, meeting_id, now=now)
        read_items(conn, role, [f"p{p.id}"], meeting_id=meeting_id, now=now)
        if role == p.proposer:
            msg_rows.finish_proposal(conn, p.id, status="withdrawn", now=now)
            said = f"{role} withdrew the proposal: {reason}"
            event(conn, meeting_id, "withdrew_end", role, said, now=now)
        else:
            generation = rows.next_generation(conn, meeting_id)
            msg_rows.insert_vote(
                conn, proposal_id=p.id, role=role, vote="reject", reason=reason, now=now
            )
            msg_rows.reject_proposal(
                conn, p.id, by=role, reason=reason, generation=generation, now=now
            )
            said = f"{role} rejected ending it: {reason}"
            item_id = meeting_item(
                conn,
                facts,
                to=p.proposer,
                sender=role,
                title=said,
                body=f"Your proposal: {p.resolution}\nRejected by {role}: {reason}",
                key=f"r{p.id}",
                now=now,
            )
            msg_rows.set_reject_item(conn, p.id, item_id)
            event(conn, meeting_id, "rejected_end", role, said, now=now)
        facts = sync_state(conn, meeting_id)
    return outcome_view(facts, now=now, proposal_id=p.id)
