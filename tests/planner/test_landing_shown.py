"""A landing holds only what the agent was shown: unshown demand gets its own wake."""

from __future__ import annotations

from builders import MIN, POLICY, T0, item, role

from deskd.core.planner import plan
from deskd.core.records import Attempt, Snapshot, Task
from deskd.core.values import priority_rank

IDLE = role(presence="idle", session_id="s1")


def landed(key: str, kind: str, **kw: object) -> Attempt:
    return Attempt(
        id=1,
        key=key,
        kind=kind,
        role="alpha",
        rung="resume",
        attempted_at=T0,
        due_at=T0 + 10 * MIN,
        launch_status="finished",
        landed_at=T0 + MIN // 2,
        finished_at=T0 + MIN,
        **kw,  # type: ignore[arg-type]
    )


def task(task_id: int) -> Task:
    return Task(
        id=task_id,
        role="alpha",
        title=f"task {task_id}",
        status="pending",
        priority=priority_rank("normal"),
        updated_at=T0,
    )


def test_a_task_the_landed_wake_did_not_list_gets_its_own_wake() -> None:
    s = Snapshot(
        roles=(IDLE,),
        tasks=(task(1), task(2)),
        attempts=(landed("idle_task:alpha", "idle_task", task_ids=(1,)),),
    )
    p = plan(s, now=T0 + 2 * MIN, policy=POLICY)
    assert [(c.attempt_id, c.outcome) for c in p.closures] == [(1, "superseded")]
    assert "1 new task" in p.closures[0].reason
    assert [(a.rung, a.task_ids) for a in p.attempts] == [("resume", (1, 2))]


def test_the_same_tasks_keep_waiting_for_their_own_sla() -> None:
    s = Snapshot(
        roles=(IDLE,),
        tasks=(task(1),),
        attempts=(landed("idle_task:alpha", "idle_task", task_ids=(1,)),),
    )
    assert plan(s, now=T0 + 2 * MIN, policy=POLICY).attempts == ()


def test_an_item_the_session_hook_already_showed_is_not_new() -> None:
    s = Snapshot(
        roles=(IDLE,),
        items=(
            item(1, priority="urgent"),
            item(2, priority="urgent", at=T0 + MIN, notified_at=T0 + MIN),
        ),
        attempts=(landed("inbox:alpha", "inbox", item_ids=(1,)),),
    )
    assert plan(s, now=T0 + 2 * MIN, policy=POLICY).attempts == ()
