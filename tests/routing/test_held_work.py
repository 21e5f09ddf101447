"""Work no role could take keeps its urgency while a person is asked to route it, and moves on
its own to the first role that gains the capability: on the next tick it is routed there (a
routing event says so) and the page is settled."""

from __future__ import annotations

from test_capability_routing import ROUTED_DESK, enqueue, routed_desk

from conftest import Desk


def test_unroutable_work_keeps_its_priority_and_is_routed_when_a_role_gains_it(
    desk: Desk,
) -> None:
    routed_desk(desk)
    # beta's launch runs /bin/true: it never lands, a transient failure retried inside the
    # rung. Without waiting between the tries (retry_wait), so the tick costs three runs of
    # /bin/true and not 2 s + 4 s of backoff this test does not judge.
    no_wait = '\n[agent]\nretry_wait = "0s"\n'
    desk.setenv("DESKD_AGENT_CMD", "/bin/true")
    out = enqueue(desk, "--capability", "billing", "--priority", "urgent", title="refund")
    assert out["unroutable"] == "billing"
    (page,) = desk.json("pages")
    assert page["priority"] == "urgent"  # a severity=["urgent"] channel takes it

    # beta learns billing: the next executing tick routes the held work to it
    desk.write_desk(
        ROUTED_DESK.format(extra="", channels=no_wait).replace(
            'capabilities = ["triage"]', 'capabilities = ["triage", "billing"]'
        )
    )
    desk.advance(minutes=1)
    desk.json("tick", "--execute", "--wait")
    (item,) = desk.json("inbox", "list", "--for", "beta")
    assert (item["title"], item["priority"]) == ("refund", "urgent")
    with desk.db() as conn:
        (row,) = conn.execute("SELECT capability, routed_why FROM items WHERE role = 'beta'")
        (event,) = conn.execute("SELECT role, detail FROM events WHERE kind = 'routing.rerouted'")
    assert row[0] == "billing" and str(row[1]).startswith("billing: beta")
    assert event[0] == "beta"
    assert desk.json("pages", "--open") == []  # the page is settled
    desk.advance(minutes=1)
    assert [a["key"] for a in desk.json("tick", "--execute", "--wait")["attempts"]] == []
