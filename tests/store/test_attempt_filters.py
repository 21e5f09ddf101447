"""``list_attempts`` filters on rung, outcome and kind in the query, before its limit, on
both backends (the console's /wakes filters rely on it)."""

from __future__ import annotations

from conftest import Desk


def test_it_filters_before_the_limit(desk: Desk) -> None:
    from deskd.store.attempts import close_attempt, insert_attempt, list_attempts

    desk.write_desk('[desk]\nname = "d"\n\n[[roles]]\nname = "alpha"\n')
    desk.json("tick", "--execute")  # the database, migrated, with its roles
    conn = desk.db()
    ids = []
    for n, (kind, rung) in enumerate([("help", "badge")] + [("inbox", "resume")] * 5):
        attempt_id = insert_attempt(
            conn, key=f"{kind}:{n}", kind=kind, role="alpha", generation=1, rung=rung,
            level=1, reason="r", ref=None, item_ids=(), attempted_at=desk.now_ms + n,
            due_at=None, supersedes=None, recycles=0, skipped=None,
        )  # fmt: skip
        ids.append(attempt_id)
    close_attempt(conn, ids[0], outcome="resolved", reason="done", now=desk.now_ms)
    newest = list_attempts(conn, role=None, open_only=False, limit=1)
    assert [a.id for a in newest] == [ids[-1]]
    for match in ({"rung": "badge"}, {"kind": "help"}, {"outcome": "resolved", "kind": "help"}):
        found = list_attempts(conn, role="alpha", open_only=False, limit=1, **match)
        assert [a.id for a in found] == [ids[0]], match
    assert list_attempts(conn, role=None, open_only=True, limit=9, kind="help") == []
