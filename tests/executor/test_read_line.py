"""The executor's reading of one output line (``read_line``), as a table of transitions."""

from __future__ import annotations

import pytest

from deskd.adapters.agents.base import SESSION, TURN
from deskd.service.engine.executor import (
    HEARTBEAT_EVERY_MS,
    TAIL_LINES,
    LaunchResult,
    read_line,
)

T0 = 1_796_140_800_000
START = LaunchResult(attempt_id=1, status="running")
BOUND = LaunchResult(attempt_id=1, status="running", session_id="s1", last_beat=T0)

# (before, signals, native id, streaming, now) -> (bind, land, beat, session, landed)
TABLE = [
    (START, set(), None, False, T0, (None, False, False, None, False)),
    (START, {SESSION}, "s1", False, T0, ("s1", False, False, "s1", False)),
    (BOUND, {SESSION}, "s1", True, T0 + 1, (None, False, False, "s1", False)),
    (BOUND, {SESSION}, "s2", False, T0, ("s2", False, False, "s2", False)),
    (START, {TURN}, None, True, T0, (None, True, False, None, True)),
    (START, {SESSION, TURN}, "s1", True, T0, ("s1", True, False, "s1", True)),
    (BOUND, set(), "s1", True, T0 + HEARTBEAT_EVERY_MS - 1, (None, False, False, "s1", False)),
    (BOUND, set(), "s1", True, T0 + HEARTBEAT_EVERY_MS, (None, False, True, "s1", False)),
    (START, set(), None, True, T0, (None, False, True, None, False)),
]


@pytest.mark.parametrize(("before", "signals", "native", "streaming", "now", "expected"), TABLE)
def test_it_reads_one_line(
    before: LaunchResult,
    signals: set[str],
    native: str | None,
    streaming: bool,
    now: int,
    expected: tuple[object, ...],
) -> None:
    after, effects = read_line(
        before, "line", signals=signals, native_id=native, streaming=streaming, now=now
    )
    assert (effects.bind, effects.land, effects.beat, after.session_id, after.landed) == expected
    assert after.output_tail == ("line",)
    assert after.last_beat == (now if effects.beat else before.last_beat)


def test_it_lands_once_and_keeps_the_last_lines() -> None:
    result = START
    lands = 0
    for n in range(TAIL_LINES + 5):
        result, effects = read_line(
            result, f"l{n}", signals={TURN}, native_id=None, streaming=False, now=T0
        )
        lands += effects.land
    assert lands == 1 and result.landed
    assert result.output_tail[0] == "l5" and len(result.output_tail) == TAIL_LINES
