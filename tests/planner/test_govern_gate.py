"""The gate of core/govern.py, pure: slots per desk and per host, budgets with a reserve for
urgent work, a waiting wake that keeps its row and never climbs, one notice per budget."""

from __future__ import annotations

from builders import MIN, POLICY, T0, attempt, item, role

from deskd.core.planner import plan
from deskd.core.records import BudgetUse, Snapshot


def snap(*roles, items=(), attempts=(), **kw) -> Snapshot:  # type: ignore[no-untyped-def]
    return Snapshot(roles=tuple(roles), items=tuple(items), attempts=tuple(attempts), **kw)


def day(used: float, *, running: float = 0.0, role: str | None = None) -> BudgetUse:
    return BudgetUse(
        name=f"{role or 'desk'}/day",
        role=role,
        unit="tokens",
        limit=100_000,
        reserve=0.1,
        used=used,
        running=running,
        period_start=T0 - 9 * 60 * MIN,
        frees="00:00 America/New_York",
    )


def test_per_host_cap_queues_only_that_hosts_roles() -> None:
    roles = [role("a", host="h1"), role("b", host="h1"), role("c", host="h2")]
    items = [item(1, "a", priority="urgent"), item(2, "b", priority="urgent", at=T0 - MIN)]
    items.append(item(3, "c", priority="urgent"))
    p = plan(
        snap(*roles, items=items, running={"h1": 1}),
        now=T0,
        policy=POLICY._replace(max_running_per_host=2),
    )
    assert sorted(x.role for x in p.launches) == ["b", "c"]  # b is older than a
    (queued,) = [a for a in p.attempts if a.skipped]
    assert queued.role == "a" and queued.due_at is None
    assert queued.skipped == "queued: 2 of max_running_per_host 2 on h1" and p.pages == ()


def test_a_budget_holds_normal_work_and_urgent_work_uses_the_reserve() -> None:
    roles = [role("a", expected_tokens=5_000), role("b", expected_tokens=5_000)]
    items = [item(1, "a", priority="urgent"), item(2, "b", at=T0 - 10 * MIN)]
    p = plan(snap(*roles, items=items, budgets=(day(97_000),)), now=T0, policy=POLICY)
    assert [x.role for x in p.launches] == ["a"]
    (held,) = [a for a in p.attempts if a.skipped]
    assert held.skipped == (
        "held by budget desk/day: used 102,000 of 100,000 tokens; frees at 00:00 America/New_York"
    )
    (notice,) = p.pages
    assert notice.notice_key == f"budget:desk/day:{T0 - 9 * 60 * MIN}" and notice.role == "b"
    again = snap(*roles, items=items, budgets=(day(97_000),), notice_keys={notice.notice_key})
    assert plan(again, now=T0, policy=POLICY).pages == ()  # once per budget per period


def test_a_role_budget_holds_only_its_role() -> None:
    roles = [role("a", expected_tokens=1), role("b", expected_tokens=1)]
    items = [item(1, "a"), item(2, "b")]
    p = plan(
        snap(*roles, items=items, budgets=(day(100_000, role="a"),)),
        now=T0 + 4 * MIN,
        policy=POLICY,
    )
    assert [x.role for x in p.launches] == ["b"]
    assert [a.skipped.split(":")[0] for a in p.attempts if a.skipped] == ["held by budget a/day"]


def test_a_waiting_wake_keeps_its_row_never_climbs_and_launches_when_it_frees() -> None:
    held = attempt(
        "inbox:a", id=7, role="a", rung="spawn", skipped="held by budget desk/day: used …"
    )
    items = [item(1, "a", at=T0 - 60 * MIN)]  # past its own SLA long ago
    a = role("a", expected_tokens=5_000)
    later = T0 + 3 * 60 * MIN
    paged = {f"budget:desk/day:{T0 - 9 * 60 * MIN}"}
    p = plan(
        snap(a, items=items, attempts=[held], budgets=(day(100_000),), notice_keys=paged),
        now=later,
        policy=POLICY,
    )
    assert p.attempts == () and p.closures == () and p.pages == () and p.launches == ()
    assert any(n.text.startswith("held by budget desk/day") for n in p.notes)
    freed = snap(
        a,
        items=items,
        attempts=[held],
        budgets=(day(0),),
        notice_keys=paged,
    )
    p = plan(freed, now=later, policy=POLICY)
    assert [(c.attempt_id, c.outcome) for c in p.closures] == [(7, "superseded")]
    assert [x.role for x in p.launches] == ["a"]
    assert p.settles == (f"budget:desk/day:{T0 - 9 * 60 * MIN}",)  # the notice is settled


def test_a_queued_wake_becomes_held_when_the_budget_is_the_cause() -> None:
    queued = attempt("inbox:a", id=3, role="a", rung="spawn", skipped="queued: 1 of …")
    p = plan(
        snap(role("a"), items=[item(1, "a")], attempts=[queued], budgets=(day(100_000),)),
        now=T0 + 4 * MIN,
        policy=POLICY,
    )
    assert [c.attempt_id for c in p.closures] == [3]
    assert [a.skipped.split(":")[0] for a in p.attempts] == ["held by budget desk/day"]


def test_a_waiting_climb_keeps_its_rung() -> None:
    # Its resume did not land, the climb to spawn was queued: freed, it spawns (not resume).
    queued = attempt("inbox:a", id=4, role="a", rung="spawn", skipped="queued: 3 of …")
    idle = role("a", presence="idle", session_id="s1")
    p = plan(snap(idle, items=[item(1, "a")], attempts=[queued]), now=T0 + 4 * MIN, policy=POLICY)
    assert [(x.role, x.rung, x.session_id) for x in p.launches] == [("a", "spawn", None)]
