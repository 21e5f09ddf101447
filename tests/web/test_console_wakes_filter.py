"""The /wakes filters (rung, outcome, reason) are applied in the query, not to the newest
few hundred rows: an old match still shows behind many newer non-matching wakes."""

from __future__ import annotations

from http_helpers import client, log_in
from web_helpers import WEB_DESK, serve

from conftest import Desk

NEWER = 520
"""More newer non-matching wakes than the page shows at once."""


def _seed(desk: Desk) -> None:
    from deskd.store.attempts import close_attempt, insert_attempt

    desk.json("tick", "--execute")  # the database, migrated, with its roles
    conn = desk.db()
    old = dict(kind="help", rung="badge", level=5, reason="old badge")
    new = dict(kind="inbox", rung="resume", level=1, reason="new resume")
    with conn:
        for n, fields in enumerate([old] + [new] * NEWER):
            attempt_id = insert_attempt(
                conn,
                key=f"{fields['kind']}:{n}",
                role="alpha",
                generation=1,
                ref=None,
                item_ids=(),
                attempted_at=desk.now_ms - 1000 * (NEWER + 1 - n),
                due_at=None,
                supersedes=None,
                recycles=0,
                skipped=None,
                **fields,  # type: ignore[arg-type]
            )
            close_attempt(conn, attempt_id, outcome="resolved", reason="done", now=desk.now_ms)
    conn.close()


def test_an_old_wake_matching_the_filters_shows_behind_many_newer_ones(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    _seed(desk)
    with serve(desk) as served, client(served.url) as c:
        assert served.code is not None
        assert log_in(c, served.code).status_code == 303
        for query in ("rung=badge", "reason=help", "rung=badge&outcome=resolved&reason=help"):
            html = c.get(f"/wakes?{query}").text
            assert "<td>help:0</td>" in html, query
            assert "<td>inbox:" not in html and "Attempt ledger (1)" in html, query
        assert "<td>inbox:" in c.get("/wakes?outcome=resolved").text
