"""The ladder picture: one bar per attempt on its rung, with launch, landing, resolution and
failure marks and page marks, every mark titled, nothing that a CSP would block."""

from __future__ import annotations

import re

from deskd.web.render import ladder_svg

T0 = 1_796_133_600_000  # 2026-12-01T14:00:00Z
MIN = 60_000


def attempt(id: int, rung: str, start: int, end: int, **kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": id, "key": "inbox:alpha", "reason": "inbox", "rung": rung, "level": 0,
        "outcome": "superseded", "start": start, "end": end, "launched": None, "landed": None,
        "resolved": None, "launch_status": None, "failure_class": None, "skipped": None,
        "acked": False, "label": f"#{id} <on> {rung}",
    }  # fmt: skip
    base.update(kw)
    return base


def test_it_draws_a_climb_with_every_kind_of_mark() -> None:
    history = {
        "role": "alpha",
        "from": T0,
        "to": T0 + 30 * MIN,
        "attempts": [
            attempt(1, "session", T0, T0 + MIN),
            attempt(
                2,
                "resume",
                T0 + MIN,
                T0 + 3 * MIN,
                launched=T0 + MIN + 5000,
                launch_status="failed",
                failure_class="permanent",
            ),
            attempt(
                3,
                "spawn",
                T0 + 3 * MIN,
                T0 + 9 * MIN,
                launched=T0 + 3 * MIN + 4000,
                landed=T0 + 4 * MIN,
                resolved=T0 + 9 * MIN,
                outcome="resolved",
            ),
            attempt(4, "badge", T0 + 10 * MIN, T0 + 30 * MIN, outcome="pending"),
        ],
        "pages": [
            {
                "id": 7,
                "attempt_id": 4,
                "at": T0 + 9 * MIN,
                "status": "sent",
                "kind": "page",
                "label": "page 7 (page, sent): alpha did not answer",
            },
        ],
    }
    svg = str(ladder_svg(history, tz="America/New_York"))
    assert svg.count('class="attempt"') == 4
    assert svg.count('class="launch"') == 2 and svg.count('class="landing"') == 1
    assert svg.count('class="resolution"') == 1 and svg.count('class="failure"') == 1
    assert svg.count('class="page"') == 1 and "launch failed: permanent" in svg
    assert "&lt;on&gt;" in svg and "<on>" not in svg  # labels are escaped
    assert "09:00" in svg  # local time on the axis (America/New_York)
    assert "style=" not in svg and "<script" not in svg
    # The bars climb: each later attempt sits on a lower lane (a larger y).
    ys = [
        float(y)
        for y in re.findall(r'<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="16"', svg)
    ]
    assert ys == sorted(ys) and len(set(ys)) == 4


def test_an_empty_window_says_so() -> None:
    svg = str(
        ladder_svg(
            {"role": "beta", "from": T0, "to": T0 + MIN, "attempts": [], "pages": []}, tz="UTC"
        )
    )
    assert "no wakes in this window" in svg
