"""Hypothesis properties of the planner: determinism, one live attempt per key, no rung
going down within a (key, generation) without a resolution."""

from __future__ import annotations

from builders import MIN, T0, Ledger, item, role
from hypothesis import given, settings
from hypothesis import strategies as st

from deskd.core.ladder import rank
from deskd.core.planner import plan

ROLES = ("alpha", "beta", "gamma")
PRESENCES = ("online", "suspect", "idle", "dead", "offline", "never")

event = st.one_of(
    st.tuples(
        st.just("item"),
        st.sampled_from(ROLES),
        st.sampled_from(("low", "normal", "high", "urgent")),
    ),
    st.tuples(st.just("read"), st.sampled_from(ROLES), st.just("")),
    st.tuples(st.just("presence"), st.sampled_from(ROLES), st.sampled_from(PRESENCES)),
    st.tuples(st.just("land"), st.sampled_from(ROLES), st.sampled_from(("yes", "no", "permanent"))),
    st.tuples(st.just("wait"), st.just(""), st.integers(min_value=0, max_value=90).map(str)),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(event, min_size=1, max_size=40))
def test_ladder_invariants_hold_through_any_history(events: list[tuple[str, str, str]]) -> None:
    ledger = Ledger(roles={n: role(n) for n in ROLES})
    now = T0
    next_item = 1
    for kind, name, arg in events:
        if kind == "item":
            ledger.items[next_item] = item(next_item, name, priority=arg, at=now)
            next_item += 1
        elif kind == "read":
            ledger.read(*[i for i, it in ledger.items.items() if it.role == name])
        elif kind == "presence":
            sid = "s-" + name if arg in ("online", "suspect", "idle", "dead") else None
            ledger.roles[name] = role(name, presence=arg, session_id=sid)
        elif kind == "land":
            ledger.finish_launches(
                landed=arg == "yes", failure="permanent" if arg == "permanent" else None, at=now
            )
        else:
            now += int(arg) * MIN
        snapshot = ledger.snapshot()
        first = plan(snapshot, now=now, policy=ledger.policy)
        assert first == plan(snapshot, now=now, policy=ledger.policy)  # deterministic
        before = dict(ledger.live)
        ledger.tick(now)  # asserts one live attempt per key while applying
        for a in first.attempts:
            if a.supersedes is not None:
                old = next(x for x in before.values() if x.id == a.supersedes)
                if a.generation == old.generation:
                    assert rank(a.rung) >= rank(old.rung)
        keys = [a.key for a in ledger.live.values()]
        assert len(keys) == len(set(keys))
        # Every live attempt is for a demanded key (no stranded attempts, lesson 5).
        again = plan(ledger.snapshot(), now=now, policy=ledger.policy)
        closed = {c.attempt_id for c in again.closures if c.outcome != "superseded"}
        demanded = {d.key for d in again.demands}
        for a in ledger.live.values():
            assert a.key in demanded or a.id in closed
        assert len({lk.role for lk in first.launches}) == len(first.launches)  # one per role
