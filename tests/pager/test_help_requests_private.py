"""A role's own request for help is never surfaced back to it nor swept up by `ack --seen`."""

from __future__ import annotations

from conftest import Desk


def test_a_help_request_survives_a_blanket_ack(desk: Desk) -> None:
    out = desk.json("page", "--title", "need prod creds", role="alpha")
    item_id = out["item_id"]
    desk.json("inbox", "list", role="alpha")  # the role lists its inbox: everything counts as seen
    desk.json("inbox", "ack", "--seen", role="alpha")
    with desk.db() as conn:
        (read_at,) = conn.execute("SELECT read_at FROM items WHERE id = ?", (item_id,)).fetchone()
    assert read_at is None
    assert desk.json("inbox", "ack", "--id", str(item_id), role="alpha") == {"acked": 1}
