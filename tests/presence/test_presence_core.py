"""presence_of: the boundaries of docs/architecture.md "Presence", as a table."""

from __future__ import annotations

import pytest

from deskd.core.sessions import BUSY, PRESENCES, is_busy, presence_of

NOW = 1_796_133_600_000  # 2026-12-01T14:00:00Z
S = 1000
DAY = 86_400 * S

# (state, heartbeat age in ms or None for no heartbeat, expected presence) with the defaults
# online = 120 s and suspect = 600 s.
DEFAULTS = [
    (None, None, "never"),
    ("working", None, "never"),
    ("working", 0, "online"),
    ("working", 119 * S, "online"),
    ("working", 120 * S - 1, "online"),
    ("working", 120 * S, "suspect"),
    ("working", 599 * S, "suspect"),
    ("working", 600 * S - 1, "suspect"),
    ("working", 600 * S, "dead"),
    ("working", 30 * DAY, "dead"),
    ("resting", 0, "idle"),
    ("resting", 119 * S, "idle"),
    ("resting", 120 * S, "idle"),
    ("resting", 600 * S, "idle"),
    ("resting", 365 * DAY, "idle"),
    ("ended", 0, "offline"),
    ("ended", 30 * DAY, "offline"),
    ("superseded", 0, "offline"),
]


@pytest.mark.parametrize(("state", "age_ms", "expected"), DEFAULTS)
def test_it_derives_presence_at_the_default_boundaries(
    state: str | None, age_ms: int | None, expected: str
) -> None:
    beat = None if age_ms is None else NOW - age_ms
    assert presence_of(state, beat, now=NOW) == expected


# The same rule with a desk's own [presence] online = 30 s, suspect = 60 s.
CUSTOM = [
    ("working", 29 * S, "online"),
    ("working", 30 * S, "suspect"),
    ("working", 59 * S, "suspect"),
    ("working", 60 * S, "dead"),
    ("resting", 60 * S, "idle"),
]


@pytest.mark.parametrize(("state", "age_ms", "expected"), CUSTOM)
def test_it_uses_the_desks_thresholds(state: str, age_ms: int, expected: str) -> None:
    assert presence_of(state, NOW - age_ms, now=NOW, online_s=30, suspect_s=60) == expected


def test_it_treats_a_heartbeat_from_the_future_as_online() -> None:
    # A clock pinned backwards (a rehearsal) must not make a fresh session look dead.
    assert presence_of("working", NOW + 5 * S, now=NOW) == "online"


def test_it_counts_only_online_and_suspect_as_busy() -> None:
    assert {p for p in PRESENCES if is_busy(p)} == set(BUSY) == {"online", "suspect"}
    assert not is_busy("idle")
    assert not is_busy("dead")
