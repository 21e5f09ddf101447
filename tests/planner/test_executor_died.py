"""A launch whose executor died is relaunched once within its rung, resuming the role's
session; a relaunch that dies too climbs as any failure does (never a relaunch loop)."""

from __future__ import annotations

from builders import MIN, POLICY, T0, attempt, item, role

from deskd.core.ladder import RELAUNCHED
from deskd.core.planner import plan
from deskd.core.records import Snapshot


def died(**kw: object) -> Snapshot:
    return Snapshot(
        roles=(role("alpha", presence="idle", session_id="s-1"),),
        items=(item(1, priority="urgent"),),
        attempts=(
            attempt(
                rung="spawn",
                item_ids=(1,),
                due_at=T0 + 3 * MIN,
                launch_status="failed",
                failure_class="transient",
                launch_detail="executor died",
                **kw,
            ),
        ),
    )


def test_it_relaunches_a_dead_launch_within_its_rung_resuming_the_session() -> None:
    out = plan(died(reason="1 unread item (urgent)"), now=T0 + MIN, policy=POLICY)
    (again,) = out.attempts
    assert (again.rung, again.generation, again.supersedes) == ("spawn", 0, 1)
    (launch,) = out.launches
    assert launch.session_id == "s-1" and out.pages == ()


def test_a_relaunch_that_dies_too_is_not_relaunched_again() -> None:
    again = died(reason="1 unread item (urgent)" + RELAUNCHED)
    assert plan(again, now=T0 + MIN, policy=POLICY).attempts == ()  # its rung's SLA runs
    (climbed,) = plan(again, now=T0 + 3 * MIN, policy=POLICY).attempts
    assert climbed.rung == "notify"


def test_a_busy_role_is_not_relaunched_into() -> None:
    busy = died(reason="1 unread item (urgent)")
    busy = Snapshot(
        roles=(role("alpha", presence="online", session_id="s-1"),),
        items=busy.items,
        attempts=busy.attempts,
    )
    assert plan(busy, now=T0 + MIN, policy=POLICY).launches == ()
