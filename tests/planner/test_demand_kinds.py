"""Every reason kind: raised, resolved and withdrawn by the one generator (lesson 1)."""

from __future__ import annotations

from builders import MIN, POLICY, T0, attempt, item, role

from deskd.core.demand import closure_for, demand
from deskd.core.planner import plan
from deskd.core.records import Attempt, HelpRequest, MeetingWake, RolloverDue, Snapshot, Task
from deskd.core.values import priority_rank


def task(
    id: int, who: str = "alpha", *, status: str = "pending", priority: str = "normal", **kw: object
) -> Task:
    return Task(
        id=id,
        role=who,
        title=f"task {id}",
        status=status,
        priority=priority_rank(priority),
        updated_at=T0,
        **kw,
    )  # type: ignore[arg-type]


def live(key: str, who: str = "alpha", **kw: object) -> Attempt:
    return attempt(key, id=9, role=who, rung="spawn", **kw)


def test_an_urgent_pending_task_wakes_its_assignee_whatever_its_presence() -> None:
    for presence in ("online", "idle", "never"):
        s = Snapshot(
            roles=(role(presence=presence, session_id="s"),), tasks=(task(1, priority="urgent"),)
        )
        assert list(demand(s, now=T0, policy=POLICY)) == ["urgent_task:1"]


def test_idle_work_wakes_only_an_idle_role_and_never_a_busy_one() -> None:
    tasks = (
        task(1),
        task(2, status="in_progress"),
        task(3, status="blocked", blocked_on="x"),
        task(4, stalled=True),
    )
    idle = Snapshot(roles=(role(presence="idle", session_id="s"),), tasks=tasks)
    (d,) = demand(idle, now=T0, policy=POLICY).values()
    assert (d.key, d.task_ids, d.cap) == ("idle_task:alpha", (1, 2), "spawn")
    busy = Snapshot(roles=(role(presence="online", session_id="s"),), tasks=tasks)
    assert demand(busy, now=T0, policy=POLICY) == {}


def test_idle_work_never_climbs_to_a_page() -> None:
    s = Snapshot(roles=(role(),), tasks=(task(1),))
    at_cap = live("idle_task:alpha", task_ids=(1,), due_at=T0 + 3 * MIN)
    p = plan(
        Snapshot(roles=s.roles, tasks=s.tasks, attempts=(at_cap,)), now=T0 + 60 * MIN, policy=POLICY
    )
    assert [a.rung for a in p.attempts] == ["spawn"] and p.pages == ()


def test_a_due_date_alone_never_wakes_anyone() -> None:
    s = Snapshot(
        roles=(role(presence="online", session_id="s"),), tasks=(task(1, due_at=T0 - MIN),)
    )
    assert demand(s, now=T0, policy=POLICY) == {}


def test_task_wakes_resolve_when_done_and_withdraw_when_reassigned() -> None:
    s = Snapshot(roles=(role(), role("beta")), done_tasks=frozenset({1}), task_roles={1: "alpha"})
    assert closure_for(s, live("urgent_task:1", task_ids=(1,))).outcome == "resolved"
    moved = Snapshot(
        roles=(role(), role("beta")),
        tasks=(task(1, "beta", priority="urgent"),),
        task_roles={1: "beta"},
    )
    c = closure_for(moved, live("urgent_task:1", task_ids=(1,)))
    assert (c.outcome, c.reason) == ("withdrawn", "task 1 reassigned to beta")
    assert list(demand(moved, now=T0, policy=POLICY)) == ["urgent_task:1"]
    assert demand(moved, now=T0, policy=POLICY)["urgent_task:1"].role == "beta"


def test_meeting_wakes_carry_their_generation_and_vanish_when_the_meeting_stops() -> None:
    wake = MeetingWake(
        meeting_id=4,
        role="beta",
        kind="meeting",
        generation=2,
        since=T0,
        urgent=False,
        lines=("Vote on closing meeting 4: your vote closes it.",),
    )
    s = Snapshot(roles=(role(), role("beta")), meeting_wakes=(wake,))
    (d,) = demand(s, now=T0, policy=POLICY).values()
    assert (
        d.key == "meeting:4:beta:2"
        and "your vote closes it" in plan(s, now=T0, policy=POLICY).launches[0].prompt
    )
    stopped = Snapshot(roles=s.roles, meeting_wakes=(wake,), inactive_meetings=frozenset({4}))
    assert demand(stopped, now=T0, policy=POLICY) == {}
    c = closure_for(stopped, live("meeting:4:beta:2", "beta"))
    assert c.outcome == "withdrawn"


def test_a_new_meeting_generation_restarts_at_the_bottom_rung() -> None:
    wake = MeetingWake(
        meeting_id=4,
        role="alpha",
        kind="meeting",
        generation=3,
        since=T0,
        urgent=False,
        lines=("x",),
    )
    old = attempt("meeting:4:alpha:3", rung="notify", generation=2, due_at=T0 + MIN)
    p = plan(
        Snapshot(
            roles=(role(presence="idle", session_id="s"),), meeting_wakes=(wake,), attempts=(old,)
        ),
        now=T0,
        policy=POLICY,
    )
    assert [(a.rung, a.generation) for a in p.attempts] == [("resume", 3)]
    assert p.pages == ()


def test_a_help_request_starts_at_notify_and_never_launches() -> None:
    s = Snapshot(
        roles=(role(presence="idle", session_id="s"),),
        items=(item(7),),
        help_requests=(
            HelpRequest(item_id=7, role="alpha", title="need prod creds", enqueued_at=T0),
        ),
    )
    p = plan(s, now=T0 + 10 * MIN, policy=POLICY)
    assert [(a.key, a.rung) for a in p.attempts] == [("help:7", "notify")]
    assert p.launches == () and [pg.key for pg in p.pages] == ["help:7"]
    assert "need prod creds" in p.pages[0].body


def test_a_rollover_resumes_the_old_session_with_the_wind_down_prompt() -> None:
    s = Snapshot(
        roles=(role(presence="idle", session_id="s-old"),),
        rollovers=(RolloverDue(role="alpha", session_key="s-old", started_at=T0 - 86_400_000),),
    )
    p = plan(s, now=T0, policy=POLICY)
    (launch,) = p.launches
    assert (
        launch.rung == "resume"
        and "SESSION_DONE" in launch.prompt
        and "session handoff" in launch.prompt
    )
