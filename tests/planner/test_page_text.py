"""What a page says (lesson 17): who, what is owed, where, since when; a help request reads
as one."""

from __future__ import annotations

from builders import POLICY, T0, item, role

from deskd.core.planner import plan
from deskd.core.records import HelpRequest, Snapshot
from deskd.core.timeparse import iso_utc


def test_a_page_says_since_when_the_demand_is_owed() -> None:
    snapshot = Snapshot(
        roles=(role("alpha", presence="never"),),
        items=(item(1, priority="urgent"),),
    )
    policy = POLICY.__class__(
        ladder=tuple(r for r in POLICY.ladder if r.name in ("notify", "badge"))
    )
    (page,) = plan(snapshot, now=T0, policy=policy).pages
    assert f"Since: {iso_utc(T0)}" in page.body.splitlines()


def test_a_help_page_is_titled_as_a_request_for_help() -> None:
    snapshot = Snapshot(
        roles=(role("alpha"),),
        help_requests=(
            HelpRequest(item_id=7, role="alpha", title="need a decision", enqueued_at=T0),
        ),
    )
    (page,) = plan(snapshot, now=T0, policy=POLICY).pages
    assert page.title == "deskd: alpha asks a person for help — need a decision"
    assert "Ref: item:7" in page.body


def test_a_page_names_each_ref_once() -> None:
    snapshot = Snapshot(
        roles=(role("alpha", presence="never"),),
        items=(
            item(1, priority="urgent", ref="https://grafana.example/d/1"),
            item(2, priority="urgent", ref="https://grafana.example/d/1"),
        ),
    )
    policy = POLICY.__class__(
        ladder=tuple(r for r in POLICY.ladder if r.name in ("notify", "badge"))
    )
    (page,) = plan(snapshot, now=T0, policy=policy).pages
    assert page.body.count('ref: "https://grafana.example/d/1"') == 2  # once per item line
    assert "\nRef: https://grafana.example/d/1" not in page.body  # not repeated after them
