"""A role whose manual `working` heartbeat goes stale: while it is busy its spawn is skipped
("role busy") and the wake climbs to a person; the tick after its presence turns dead
re-evaluates the rung and launches — it does not wait for the badge's 30-minute recycle."""

from __future__ import annotations

from conftest import Desk


def test_a_stale_manual_heartbeat_gets_its_rung_re_evaluated_when_it_dies(
    desk: Desk, recorded_launches: list[int]
) -> None:
    desk.ok("status", "set", "--role", "alpha", "--state", "working", "--activity", "by hand")
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk 91%")
    recorded: list[tuple[int, str, str | None]] = []
    launched_at = None
    for minute in range(1, 13):
        desk.advance(minutes=1)
        out = desk.json("tick", "--execute")
        recorded += [(minute, a["rung"], a["skipped"]) for a in out.get("attempts", [])]
        if recorded_launches and launched_at is None:
            launched_at = minute
    assert recorded == [
        (3, "session", None),  # the inbox batch (3 min): it is busy, so its own session
        (4, "spawn", "role busy"),  # suspect: deskd never starts a second session
        (7, "notify", None),  # a person is paged meanwhile
        (10, "spawn", None),  # its heartbeat is 10 min old: dead — launch now
    ]
    assert launched_at == 10
    re_evaluated = [r for r in desk.json("wake", "list") if r["rung"] == "notify"]
    assert [(r["outcome"], r["detail"]) for r in re_evaluated] == [
        ("superseded", "presence went dead: rung re-evaluated")
    ]
    assert set(recorded_launches) == {re_evaluated[0]["id"] + 1}  # one launch: no relaunch loop
