"""docs/contract.md "Values": each closed set is declared once (``deskd.core.values`` or its
domain's core module) and every other spelling is derived from it or, where the one set cannot
be imported (the session hook and the store modules it loads import neither typing nor core),
held equal to it here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args, get_type_hints

import pytest

from deskd import quoting
from deskd.adapters.agents import KINDS
from deskd.adapters.agents.base import FAILURE_CLASSES, PERMANENT, TASK, TRANSIENT
from deskd.adapters.agents.base import USAGE_LIMIT as ADAPTER_USAGE_LIMIT
from deskd.config import desk
from deskd.config.settings import Settings
from deskd.core import ladder, meetings, records, sessions, tasks, values
from deskd.service.meetings import lifecycle
from deskd.service.ops import init_answers
from deskd.service.ops.console import CODE_MODES, KEY_MODES
from deskd.store import sessions as session_rows

CONTRACT = Path(__file__).resolve().parents[2] / "docs" / "contract.md"


def contract_values(what: str) -> tuple[str, ...]:
    """The backticked names of the Values table's row ``what`` (before any ``/``)."""
    for line in CONTRACT.read_text(encoding="utf-8").splitlines():
        if line.startswith(f"| {what} |"):
            cell = line.split("|")[2].split(" / ")[0]
            return tuple(re.findall(r"`([a-z_]+)`", cell))
    raise AssertionError(f"no row {what!r} in docs/contract.md Values")


@pytest.mark.parametrize(
    ("what", "declared"),
    [
        ("priority (items, tasks, pages)", values.PRIORITIES),
        ("rung", tuple(ladder.RUNGS)),
        ("presence", sessions.PRESENCES),
        ("task status", tasks.STATUSES),
        ("meeting message kind", meetings.KINDS),
    ],
)
def test_the_contract_names_the_declared_set(what: str, declared: tuple[str, ...]) -> None:
    assert contract_values(what)[: len(declared)] == declared


def test_the_desk_file_types_are_the_core_sets() -> None:
    assert get_args(desk.Rung) == tuple(ladder.RUNGS)
    assert get_args(desk.Severity) == values.PRIORITIES
    assert get_args(desk.AgentKind) == desk.AGENT_KINDS == values.AGENT_KINDS


def test_the_copies_the_hook_can_reach_match_core() -> None:
    # The session hook imports neither typing nor deskd.core (tests/hook/test_hook_imports.py):
    # its priority names and the store's live session states are copies.
    assert quoting.PRIORITIES == values.PRIORITIES
    assert session_rows.LIVE_STATES == values.SESSION_STATES


def test_the_subsets_are_drawn_from_the_one_set() -> None:
    assert lifecycle.PRIORITIES == ("normal", "urgent")
    assert init_answers.AGENT_KINDS == ("claude", "codex", "gemini", "opencode")
    assert tuple(KINDS) == values.AGENT_KINDS


def test_the_adapters_failure_classes_are_core_s() -> None:
    assert FAILURE_CLASSES == values.FAILURE_CLASSES == contract_values("failure class")[:4]
    assert (PERMANENT, TRANSIENT, ADAPTER_USAGE_LIMIT, TASK) == values.FAILURE_CLASSES


def test_the_console_auth_modes_cover_the_setting() -> None:
    hint = get_type_hints(Settings)["supervisor_auth_mode"]
    assert set(get_args(hint)) == CODE_MODES | KEY_MODES
    assert frozenset({"hybrid"}) == CODE_MODES & KEY_MODES


def test_the_launch_status_subsets_are_launch_statuses() -> None:
    statuses = set(contract_values("launch status"))
    assert ladder.IN_FLIGHT.issubset(statuses)
    assert records.LAUNCH_FAILED.issubset(statuses)
    assert ladder.LAUNCH_RUNGS.issubset(ladder.RUNGS)
