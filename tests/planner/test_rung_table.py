"""The ladder's rungs are one table (core/ladder.py ``RUNGS``): a new rung is a table entry,
and no module outside the table decides anything by a rung's name."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from builders import MIN, T0, Ledger, attempt, item, role

from deskd.core import ladder
from deskd.core.records import Policy, Rung

SRC = Path(__file__).resolve().parents[2] / "src" / "deskd"
NAMES = "|".join(ladder.RUNGS)
# ``rung == "badge"``, ``a["rung"] in ("notify", …)``, ``"resume" != current.rung``, a floor
# or cap spelled as a name: each is behaviour that belongs in the table.
COMPARES_A_NAME = [
    re.compile(r"""rung\b["'\]]*\s*(==|!=|not in|in)\s*[(\[{]?\s*["']"""),
    re.compile(rf"""["']({NAMES})["']\s*(==|!=)\s*\w*\.?\w*rung"""),
    re.compile(rf"""\b(floor|cap)\s*=\s*["']({NAMES})["']"""),
]


def _sources() -> Iterator[Path]:
    yield from sorted(SRC.rglob("*.py"))
    yield from sorted((SRC / "web" / "templates").glob("*.html"))


def test_no_module_outside_the_table_compares_a_rung_name() -> None:
    found = [
        f"{path.relative_to(SRC)}:{n}: {line.strip()}"
        for path in _sources()
        if path != SRC / "core" / "ladder.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if any(p.search(line) for p in COMPARES_A_NAME)
    ]
    assert found == []


def test_the_pattern_finds_a_comparison() -> None:
    lines = ['if a["rung"] == "badge":', 'current.rung in ("notify", "badge")', 'cap="spawn",']
    assert all(any(p.search(line) for p in COMPARES_A_NAME) for line in lines)


@pytest.fixture
def escalate() -> Iterator[Policy]:
    """The table with one more rung, ``escalate`` (a second person's rung, 10 min, after
    ``notify``), and a desk ladder that uses it."""
    saved = dict(ladder.RUNGS)
    ladder.RUNGS.clear()
    for name, spec in saved.items():
        ladder.RUNGS[name] = spec
        if name == "notify":
            ladder.RUNGS["escalate"] = ladder.RungSpec(sla_s=600, pages=True)
    try:
        yield Policy(ladder=tuple(Rung(name=n, sla_s=r.sla_s) for n, r in ladder.RUNGS.items()))
    finally:
        ladder.RUNGS.clear()
        ladder.RUNGS.update(saved)


def test_it_walks_a_desk_through_a_rung_added_to_the_table(escalate: Policy) -> None:
    ledger = Ledger(roles={"alpha": role()}, policy=escalate)
    ledger.items[1] = item(1, priority="urgent", sla_min=60)
    assert [a.rung for a in ledger.tick(T0).attempts] == ["spawn"]
    ledger.finish_launches(landed=False, at=T0 + MIN)
    p = ledger.tick(T0 + 3 * MIN)
    assert [a.rung for a in p.attempts] == ["notify"] and len(p.pages) == 1
    assert ledger.tick(T0 + 7 * MIN).attempts == ()  # notify's SLA is 5 min
    p = ledger.tick(T0 + 8 * MIN)
    # It pages, but the key's page is still open: never a second page for one key.
    assert [a.rung for a in p.attempts] == ["escalate"] and p.pages == ()
    assert p.attempts[0].due_at == T0 + 18 * MIN
    assert ledger.tick(T0 + 17 * MIN).attempts == ()
    assert [a.rung for a in ledger.tick(T0 + 18 * MIN).attempts] == ["badge"]


def test_a_new_urgent_item_drops_the_added_person_rung_back_to_the_machine(
    escalate: Policy,
) -> None:
    ledger = Ledger(roles={"alpha": role(presence="idle", session_id="s1")}, policy=escalate)
    ledger.live["inbox:alpha"] = attempt(rung="escalate", item_ids=(1,))
    ledger.next_id = 2
    ledger.items[1] = item(1, priority="urgent")
    ledger.items[2] = item(2, priority="urgent", at=T0 + MIN)
    p = ledger.tick(T0 + 2 * MIN)
    assert [a.rung for a in p.attempts] == ["resume"]
    assert [pg.follow_up for pg in p.pages] == [True]
