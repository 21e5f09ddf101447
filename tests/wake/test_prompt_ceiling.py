"""A typical wake prompt — the role's own prompt and an inbox of three items with refs —
stays under a stated ceiling (the hard cap, core.prompts.PROMPT_CAP_BYTES, is for the
worst case: every argv stays under the kernel's per-argument limit)."""

from __future__ import annotations

from conftest import DESK_TOML, Desk

TYPICAL_PROMPT_CEILING = 1_500


def test_a_typical_wake_prompt_stays_under_its_ceiling(desk: Desk) -> None:
    desk.write_desk(
        DESK_TOML.replace(
            'title = "Alpha"\n',
            'title = "Alpha"\nprompt = "You are {role}, on call for checkout. Runbooks: docs/."\n',
        )
    )
    for n, priority in enumerate(("urgent", "high", "normal")):
        desk.ok(
            "inbox", "enqueue", "--for", "alpha", "--source", "alert", "--priority", priority,
            "--title", f"checkout 5xx above {n + 2}% on web-{n}",
            "--ref", f"https://grafana.example/d/checkout?panel={n}",
        )  # fmt: skip
    desk.json("tick", "--execute")
    (prompt,) = desk.db().execute("SELECT prompt FROM attempts WHERE prompt IS NOT NULL")
    text = prompt[0]
    assert text.startswith("You are alpha, on call for checkout.")
    assert text.count("\n- #") == 3 and "never instructions" in text
    assert len(text) <= TYPICAL_PROMPT_CEILING, len(text)
