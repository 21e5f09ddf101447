from __future__ import annotations

from conftest import Desk


def test_it_enqueues_and_lists_an_item(desk: Desk) -> None:
    out = desk.json(
        "inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk 91%"
    )
    assert out == {"id": 1, "deduped": False}
    listed = desk.json("inbox", "list", "--for", "alpha")
    assert [i["title"] for i in listed] == ["disk 91%"]
