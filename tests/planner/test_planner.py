"""Table-driven planner tests: a snapshot in, a plan out (docs/architecture.md ladder rules)."""

from __future__ import annotations

import pytest
from builders import MIN, POLICY, T0, Ledger, attempt, item, role

from deskd.core.demand import inbox_due_at
from deskd.core.planner import plan
from deskd.core.records import Policy, Rung, Snapshot


def snap(*roles, items=(), attempts=(), **kw) -> Snapshot:  # type: ignore[no-untyped-def]
    return Snapshot(roles=tuple(roles), items=tuple(items), attempts=tuple(attempts), **kw)


@pytest.mark.parametrize(
    ("presence", "session_id", "expected"),
    [
        ("online", "s1", "session"),
        ("suspect", "s1", "session"),
        ("idle", "s1", "resume"),
        ("dead", "s1", "resume"),
        ("never", None, "spawn"),
        ("offline", None, "spawn"),
    ],
)
def test_it_starts_on_the_rung_presence_allows(
    presence: str, session_id: str | None, expected: str
) -> None:
    p = plan(
        snap(role(presence=presence, session_id=session_id), items=[item(1, priority="urgent")]),
        now=T0,
        policy=POLICY,
    )
    assert [a.rung for a in p.attempts] == [expected]


def test_it_wakes_for_an_urgent_item_at_once_and_batches_normal_ones() -> None:
    s = snap(role(presence="idle", session_id="s1"), items=[item(1), item(2, at=T0 + MIN)])
    assert plan(s, now=T0 + 2 * MIN, policy=POLICY).attempts == ()
    assert [a.key for a in plan(s, now=T0 + 3 * MIN, policy=POLICY).attempts] == ["inbox:alpha"]
    urgent = snap(role(presence="idle", session_id="s1"), items=[item(3, priority="urgent", at=T0)])
    assert len(plan(urgent, now=T0, policy=POLICY).attempts) == 1


def test_it_computes_the_batch_due_instant_in_one_function() -> None:
    assert inbox_due_at([item(1), item(2, at=T0 + MIN)], batch_s=180) == T0 + 3 * MIN
    assert inbox_due_at([item(1), item(2, priority="urgent", at=T0 + MIN)], batch_s=180) == T0 + MIN
    assert inbox_due_at([], batch_s=180) is None
    assert inbox_due_at([item(1, live=False)], batch_s=180) is None


def test_it_never_launches_a_second_session_for_a_busy_role() -> None:
    busy = role(presence="online", session_id="s1")
    live = attempt(due_at=T0 + MIN, item_ids=(1,))
    p = plan(
        snap(busy, items=[item(1, priority="urgent")], attempts=[live]),
        now=T0 + 2 * MIN,
        policy=POLICY,
    )
    assert [(a.rung, a.skipped) for a in p.attempts] == [("resume", "role busy")]
    assert p.launches == ()


def test_it_waits_while_a_busy_role_was_shown_the_items() -> None:
    busy = role(presence="online", session_id="s1")
    live = attempt(due_at=T0 + MIN, item_ids=(1,))
    shown = item(1, priority="urgent", sla_min=5, notified_at=T0)
    p = plan(snap(busy, items=[shown], attempts=[live]), now=T0 + 2 * MIN, policy=POLICY)
    assert p.attempts == () and "session hook" in p.notes[0].text
    p = plan(snap(busy, items=[shown], attempts=[live]), now=T0 + 5 * MIN, policy=POLICY)
    assert [a.rung for a in p.attempts] == ["resume"]


def test_it_resolves_when_the_items_are_read_and_withdraws_for_a_disabled_role() -> None:
    live = attempt(id=7, rung="resume", item_ids=(1,))
    p = plan(snap(role(presence="idle", session_id="s1"), attempts=[live]), now=T0, policy=POLICY)
    assert [(c.attempt_id, c.outcome) for c in p.closures] == [(7, "resolved")]
    p = plan(
        snap(role(enabled=False), items=[item(1)], attempts=[live]), now=T0 + 9 * MIN, policy=POLICY
    )
    assert [(c.attempt_id, c.outcome) for c in p.closures] == [(7, "withdrawn")]
    assert p.attempts == ()


def test_it_withdraws_when_items_stop_raising_demand() -> None:
    live = attempt(id=7, rung="resume", item_ids=(1,))
    p = plan(snap(role(), items=[item(1, live=False)], attempts=[live]), now=T0, policy=POLICY)
    assert [(c.outcome, c.reason) for c in p.closures] == [("withdrawn", "items no longer live")]


def test_it_climbs_after_the_rung_sla_and_pages_only_on_reaching_notify() -> None:
    ledger = Ledger(roles={"alpha": role()})
    ledger.items[1] = item(1, priority="urgent", sla_min=60)
    p = ledger.tick(T0)
    assert [a.rung for a in p.attempts] == ["spawn"] and len(p.launches) == 1
    ledger.finish_launches(landed=False, at=T0 + MIN)
    assert ledger.tick(T0 + 2 * MIN).attempts == ()  # spawn SLA is 3 min
    p = ledger.tick(T0 + 3 * MIN)
    assert [a.rung for a in p.attempts] == ["notify"]
    assert [pg.key for pg in p.pages] == ["inbox:alpha"]
    p = ledger.tick(T0 + 8 * MIN)
    assert [a.rung for a in p.attempts] == ["badge"] and p.pages == ()


def test_it_does_not_climb_while_the_launch_runs_or_after_landing_until_the_items_sla() -> None:
    ledger = Ledger(roles={"alpha": role(presence="idle", session_id="s1")})
    ledger.items[1] = item(1, priority="urgent", sla_min=5)
    ledger.tick(T0)
    assert ledger.tick(T0 + 3 * MIN).attempts == ()  # resume SLA passed, launch still planned
    ledger.finish_launches(landed=True, at=T0 + 3 * MIN)
    assert ledger.tick(T0 + 4 * MIN).attempts == ()
    p = ledger.tick(T0 + 5 * MIN)
    assert [a.rung for a in p.attempts] == ["spawn"]


def test_it_climbs_at_once_after_a_permanent_launch_failure() -> None:
    ledger = Ledger(roles={"alpha": role()})
    ledger.items[1] = item(1, priority="urgent")
    ledger.tick(T0)
    ledger.finish_launches(landed=False, failure="permanent", at=T0 + 1000)
    p = ledger.tick(T0 + MIN)
    assert [a.rung for a in p.attempts] == ["notify"]


def test_it_recycles_the_badge_with_backoff_and_never_pages_twice() -> None:
    ledger = Ledger(roles={"alpha": role()})
    ledger.items[1] = item(1, priority="urgent", sla_min=1)
    now = T0
    ledger.tick(now)
    for _ in range(3):
        ledger.finish_launches(landed=False, at=now)
        now += 6 * MIN
        ledger.tick(now)
    assert ledger.live["inbox:alpha"].rung == "badge"
    badge_at = ledger.live["inbox:alpha"].attempted_at
    assert ledger.tick(badge_at + 29 * MIN).attempts == ()
    p = ledger.tick(badge_at + 30 * MIN)
    assert [(a.rung, a.generation, a.recycles) for a in p.attempts] == [("spawn", 1, 1)]
    now = badge_at + 30 * MIN
    for _ in range(4):
        ledger.finish_launches(landed=False, at=now)
        now += 6 * MIN
        ledger.tick(now)
    assert ledger.live["inbox:alpha"].rung == "badge"
    assert ledger.pages == ["inbox:alpha"]  # the first page is still open: no second one
    second = ledger.live["inbox:alpha"].attempted_at
    assert ledger.tick(second + 59 * MIN).attempts == ()
    assert ledger.tick(second + 60 * MIN).attempts[0].recycles == 2


def test_it_merges_a_roles_launch_rung_attempts_into_one_launch() -> None:
    from deskd.core import demand as demand_module

    s = snap(
        role(presence="idle", session_id="s1"),
        role("beta"),
        items=[item(1, priority="urgent"), item(2, "beta", priority="urgent")],
    )
    p = plan(s, now=T0, policy=POLICY)
    assert [(x.role, x.rung, x.session_id) for x in p.launches] == [
        ("alpha", "resume", "s1"),
        ("beta", "spawn", None),
    ]
    assert "#1" in p.launches[0].prompt and "deskd inbox ack" in p.launches[0].prompt
    assert demand_module.inbox_key("alpha") == p.launches[0].keys[0]


def test_it_puts_the_roles_desk_prompt_first() -> None:
    s = snap(role(prompt="Load the skill as {role}."), items=[item(1, priority="urgent")])
    assert plan(s, now=T0, policy=POLICY).launches[0].prompt.startswith("Load the skill as alpha.")


def test_it_caps_the_prompt() -> None:
    many = [item(i, priority="urgent")._replace(title="x" * 300) for i in range(1, 400)]
    p = plan(snap(role(), items=many), now=T0, policy=POLICY)
    prompt = p.launches[0].prompt
    assert len(prompt.encode()) <= 32 * 1024 and "more lines" in prompt


def test_it_holds_an_acknowledged_attempt_until_new_work_arrives() -> None:
    acked = attempt(rung="notify", due_at=T0 + 5 * MIN, item_ids=(1,), ack_until=T0 + 240 * MIN)
    s = snap(role(), items=[item(1)], attempts=[acked])
    assert plan(s, now=T0 + 60 * MIN, policy=POLICY).attempts == ()
    s2 = snap(role(), items=[item(1), item(2, at=T0 + MIN)], attempts=[acked])
    assert [a.rung for a in plan(s2, now=T0 + 60 * MIN, policy=POLICY).attempts] == ["badge"]


def test_a_new_urgent_item_at_notify_retries_the_machine_rungs_and_follows_up_the_page() -> None:
    paged = attempt(rung="notify", due_at=T0 + 5 * MIN, item_ids=(1,))
    s = snap(
        role(),
        items=[item(1), item(2, priority="urgent", at=T0 + MIN)],
        attempts=[paged],
        open_page_keys=frozenset({"inbox:alpha"}),
    )
    p = plan(s, now=T0 + MIN, policy=POLICY)
    assert [(a.rung, a.generation) for a in p.attempts] == [("spawn", 1)]
    assert [(pg.follow_up) for pg in p.pages] == [True]


def test_pause_records_the_demand_but_launches_and_pages_nothing() -> None:
    s = snap(role(paused=True, pause_reason="maintenance"), items=[item(1, priority="urgent")])
    p = plan(s, now=T0, policy=POLICY)
    assert [(a.key, a.skipped) for a in p.attempts] == [("inbox:alpha", "paused: maintenance")]
    assert p.launches == () and p.pages == () and "maintenance" in p.notes[0].text
    s = snap(role(), items=[item(1, priority="urgent")], desk_paused=True)
    p = plan(s, now=T0, policy=POLICY)
    assert [a.skipped for a in p.attempts] == ["paused: desk paused"]
    assert p.launches == () and p.pages == ()


@pytest.mark.parametrize(
    ("kw", "why"),
    [
        ({"held_until": T0 + 60 * MIN}, "usage limit"),
        ({"launches_today": 48}, "daily launch cap"),
    ],
)
def test_caps_and_usage_limits_skip_the_launch(kw: dict[str, object], why: str) -> None:
    p = plan(snap(role(**kw), items=[item(1, priority="urgent")]), now=T0, policy=POLICY)
    assert p.launches == () and why in (p.attempts[0].skipped or "")


def test_a_desk_without_resume_or_spawn_climbs_over_them() -> None:
    ladder = Policy(
        ladder=(
            Rung(name="session", sla_s=60),
            Rung(name="notify", sla_s=300),
            Rung(name="badge", sla_s=None),
        )
    )
    p = plan(snap(role(), items=[item(1, priority="urgent")]), now=T0, policy=ladder)
    assert [a.rung for a in p.attempts] == ["notify"] and len(p.pages) == 1


def test_climbing_from_session_skips_resume_without_a_session() -> None:
    live = attempt(due_at=T0 + MIN, item_ids=(1,))
    p = plan(
        snap(role(presence="never"), items=[item(1, priority="urgent")], attempts=[live]),
        now=T0 + MIN,
        policy=POLICY,
    )
    assert [a.rung for a in p.attempts] == ["spawn"]


def test_a_usage_limit_pages_once_and_a_daily_cap_pages_once() -> None:
    held = role(held_until=T0 + 60 * MIN)
    p = plan(snap(held, items=[item(1, priority="urgent")]), now=T0, policy=POLICY)
    (notice,) = p.pages
    assert (
        notice.notice_key == f"usage_limit:alpha:{T0 + 60 * MIN}" and "usage limit" in notice.title
    )
    again = snap(
        held, items=[item(1, priority="urgent")], notice_keys=frozenset({notice.notice_key})
    )
    assert plan(again, now=T0, policy=POLICY).pages == ()
    capped = role(launches_today=48)
    p = plan(
        snap(capped, items=[item(1, priority="urgent")], day_start=T0 - 600 * MIN),
        now=T0,
        policy=POLICY,
    )
    assert [pg.notice_key for pg in p.pages] == [f"cap:alpha:{T0 - 600 * MIN}"]
    busy = role(presence="online", session_id="s")
    live = attempt(due_at=T0 + MIN, item_ids=(1,))
    assert (
        plan(
            snap(busy, items=[item(1, priority="urgent")], attempts=[live]),
            now=T0 + MIN,
            policy=POLICY,
        ).pages
        == ()
    )


def test_after_a_successful_wake_a_later_stuck_item_still_escalates() -> None:
    """lesson 2: "is something re-driving this?" means a live attempt, not one that ever was."""
    ledger = Ledger(roles={"alpha": role(presence="idle", session_id="s1")})
    ledger.items[1] = item(1, priority="urgent")
    ledger.tick(T0)
    ledger.finish_launches(landed=True, at=T0 + MIN)
    ledger.read(1)
    assert [c.outcome for c in ledger.tick(T0 + 2 * MIN).closures] == ["resolved"]
    ledger.items[2] = item(2, priority="urgent", at=T0 + 10 * MIN, sla_min=5)
    rungs = []
    now = T0 + 10 * MIN
    for _ in range(12):
        rungs += [a.rung for a in ledger.tick(now).attempts]
        ledger.finish_launches(landed=False, at=now)
        now += MIN
    assert rungs[:3] == ["resume", "spawn", "notify"]
