"""The planner changes the tasks/sessions issue made: a reassigned key moves to its new role,
idle work is offered again after a used wake, and a rollover re-arms per failed try, never
spawns, and pages once after MAX_TRIES."""

from __future__ import annotations

from builders import MIN, POLICY, T0, attempt, role

from deskd.core.demand import demand
from deskd.core.planner import plan
from deskd.core.records import Attempt, RolloverDue, Snapshot, Task
from deskd.core.sessions import MAX_TRIES
from deskd.core.values import priority_rank


def task(id: int, who: str = "alpha", *, priority: str = "normal", **kw: object) -> Task:
    return Task(
        id=id,
        role=who,
        title=f"task {id}",
        status="pending",
        priority=priority_rank(priority),
        updated_at=T0,
        **kw,  # type: ignore[arg-type]
    )


def spawned(key: str, **kw: object) -> Attempt:
    """A spawn-rung attempt due 3 min after T0, unless ``kw`` says otherwise."""
    return attempt(key, **{"id": 9, "rung": "spawn", "due_at": T0 + 3 * MIN, **kw})


def test_it_withdraws_the_old_assignees_wake_and_starts_one_for_the_new_assignee() -> None:
    moved = Snapshot(
        roles=(role(presence="idle", session_id="s"), role("beta")),
        tasks=(task(1, "beta", priority="urgent"),),
        task_roles={1: "beta"},
        attempts=(spawned("urgent_task:1", task_ids=(1,)),),
    )
    p = plan(moved, now=T0 + MIN, policy=POLICY)
    (closure,) = p.closures
    assert (closure.attempt_id, closure.outcome, closure.reason) == (
        9,
        "withdrawn",
        "task 1 reassigned to beta",
    )
    assert [(a.key, a.role, a.rung) for a in p.attempts] == [("urgent_task:1", "beta", "spawn")]
    assert [x.role for x in p.launches] == ["beta"]


def test_a_used_idle_wake_is_offered_again_after_the_batch_delay_from_the_start_rung() -> None:
    used = spawned(
        "idle_task:alpha",
        rung="resume",
        task_ids=(1,),
        launch_status="finished",
        landed_at=T0 + MIN,
        finished_at=T0 + 2 * MIN,
    )
    s = Snapshot(roles=(role(presence="idle", session_id="s"),), tasks=(task(1),), attempts=(used,))
    early = plan(s, now=T0 + 4 * MIN, policy=POLICY)
    assert early.attempts == () and "landed" in early.notes[0].text
    later = T0 + 2 * MIN + POLICY.inbox_batch_s * 1000
    p = plan(s, now=later, policy=POLICY)
    assert [(c.outcome, c.reason) for c in p.closures] == [("superseded", "re-armed")]
    assert [(a.rung, a.generation) for a in p.attempts] == [("resume", 1)]


def test_a_failed_launch_before_landing_climbs_instead_of_re_arming() -> None:
    failed = spawned(
        "idle_task:alpha",
        task_ids=(1,),
        launch_status="failed",
        failure_class="permanent",
        finished_at=T0,
    )
    s = Snapshot(roles=(role(presence="idle"),), tasks=(task(1),), attempts=(failed,))
    p = plan(s, now=T0 + 60 * MIN, policy=POLICY)
    assert [(a.rung, a.generation) for a in p.attempts] == [("spawn", 0)] and p.pages == ()


def due(tries: int) -> RolloverDue:
    return RolloverDue(role="alpha", session_key="7", started_at=T0 - 10 * 60 * MIN, tries=tries)


def test_a_rollover_resumes_the_session_and_a_failed_try_re_arms_it() -> None:
    idle = role(presence="idle", session_id="s")
    first = plan(Snapshot(roles=(idle,), rollovers=(due(0),)), now=T0, policy=POLICY)
    (launch,) = first.launches
    assert (launch.rung, launch.session_id) == ("resume", "s") and "SESSION_DONE" in launch.prompt
    tried = spawned("rollover:7", rung="resume", launch_status="finished", landed_at=T0)
    again = plan(
        Snapshot(roles=(idle,), rollovers=(due(1),), attempts=(tried,)), now=T0 + MIN, policy=POLICY
    )
    assert [(a.rung, a.generation) for a in again.attempts] == [("resume", 1)]


def test_a_rollover_for_a_busy_role_waits_and_never_spawns_or_pages() -> None:
    busy = role(presence="online", session_id="s")
    s = Snapshot(roles=(busy,), rollovers=(due(0),))
    rungs: list[str] = []
    live: list[Attempt] = []
    for minute in range(0, 120, 3):
        p = plan(s._replace(attempts=tuple(live)), now=T0 + minute * MIN, policy=POLICY)
        assert p.pages == () and p.launches == ()
        for a in p.attempts:
            rungs.append(a.rung)
            live = [spawned(a.key, rung=a.rung, due_at=a.due_at, at=T0 + minute * MIN)]
    assert set(rungs) == {"session", "resume"}


def test_after_max_tries_a_rollover_pages_a_person_once_and_launches_nothing() -> None:
    idle = role(presence="idle", session_id="s")
    (d,) = demand(
        Snapshot(roles=(idle,), rollovers=(due(MAX_TRIES),)), now=T0, policy=POLICY
    ).values()
    assert (d.floor, d.cap, d.generation) == ("notify", None, MAX_TRIES)
    last = spawned("rollover:7", rung="resume", generation=MAX_TRIES - 1, launch_status="failed")
    p = plan(
        Snapshot(roles=(idle,), rollovers=(due(MAX_TRIES),), attempts=(last,)),
        now=T0,
        policy=POLICY,
    )
    assert [a.rung for a in p.attempts] == ["notify"] and p.launches == ()
    (page,) = p.pages
    assert "failed 3 times" in page.body
    on_notify = spawned("rollover:7", rung="notify", generation=MAX_TRIES, due_at=T0)
    again = plan(
        Snapshot(
            roles=(idle,),
            rollovers=(due(MAX_TRIES),),
            attempts=(on_notify,),
            open_page_keys=frozenset({"rollover:7"}),
        ),
        now=T0 + 10 * MIN,
        policy=POLICY,
    )
    assert [a.rung for a in again.attempts] == ["badge"] and again.pages == ()
