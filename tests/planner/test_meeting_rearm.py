"""A re-armed meeting wake (attendance overdue) runs under a new key: the old attempt is
withdrawn as re-armed, not reported as if the role had checked in (lesson 14)."""

from __future__ import annotations

from builders import MIN, POLICY, T0, attempt, role

from deskd.core.planner import plan
from deskd.core.records import Attempt, Closure, MeetingWake, Snapshot


def wake(who: str, generation: int) -> MeetingWake:
    return MeetingWake(
        meeting_id=4,
        role=who,
        kind="meeting",
        generation=generation,
        since=T0,
        urgent=False,
        lines=("Overdue: check in.",),
    )


def on_notify(who: str, generation: int) -> Attempt:
    return attempt(
        f"meeting:4:{who}:{generation}",
        role=who,
        rung="notify",
        generation=generation,
        due_at=T0 + MIN,
    )


def test_the_old_generation_is_withdrawn_as_rearmed_and_the_new_starts_low() -> None:
    snapshot = Snapshot(
        roles=(role("gamma", presence="idle", session_id="s"),),
        meeting_wakes=(wake("gamma", 2),),
        attempts=(on_notify("gamma", 1),),
    )
    p = plan(snapshot, now=T0 + 10 * MIN, policy=POLICY)
    assert p.closures == (
        Closure(attempt_id=1, outcome="withdrawn", reason="re-armed as generation 2"),
    )
    assert [(a.key, a.rung) for a in p.attempts] == [("meeting:4:gamma:2", "resume")]
    assert p.pages == ()


def test_another_roles_new_generation_does_not_relabel_a_check_in() -> None:
    snapshot = Snapshot(
        roles=(role("beta"), role("gamma")),
        meeting_wakes=(wake("gamma", 2),),
        attempts=(on_notify("beta", 1),),
    )
    p = plan(snapshot, now=T0, policy=POLICY)
    assert p.closures[0].outcome == "resolved"
