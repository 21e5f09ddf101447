"""A meeting's tally under racing writers: members sending at once never spend past its
budget, and racing positions leave one each (index meeting_messages_position; the desk-wide
write lock on PostgreSQL: docs/architecture.md, "What is serialized")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from meeting_helpers import meeting_of, status

from conftest import Desk

DESKD = Path(sys.executable).parent / "deskd"
ROLES = ("alpha", "beta", "gamma")


def race(desk: Desk, *commands: list[str]) -> list[int]:
    """Run the ``deskd`` commands at once; their exit codes."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(desk.env())
    procs = [
        subprocess.Popen(
            [str(DESKD), *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        for args in commands
    ]
    return [proc.wait(timeout=600) for proc in procs]


def tally(desk: Desk, meeting: int) -> list[tuple[str, str]]:
    conn = desk.db()
    try:
        rows = conn.execute(
            "SELECT kind, sender FROM meeting_messages WHERE meeting_id = ?", (meeting,)
        ).fetchall()
    finally:
        conn.close()
    return sorted((str(r[0]), str(r[1])) for r in rows)


@pytest.mark.slow
def test_racing_sends_and_positions_keep_the_budget_and_one_position_each(desk: Desk) -> None:
    m = meeting_of(desk, "beta", "gamma", max_messages=6, consensus_at=2)
    before = len(tally(desk, m))
    codes = race(desk, *(["meeting", "send", str(m), "--role", role, "--body", f"point {n}"]
                         for n, role in enumerate(ROLES * 4)))  # fmt: skip
    assert set(codes) <= {0, 1} and codes.count(0) == 4, codes  # sent, or refused: no crash
    assert len(tally(desk, m)) == before + 4
    assert (status(desk, m)["state"], status(desk, m)["budget_left"]) == ("consensus", 2)
    codes = race(desk, *(["meeting", "position", str(m), "--role", role, "--body", f"{role} {n}"]
                         for n, role in enumerate(ROLES * 3)))  # fmt: skip
    assert set(codes) <= {0, 1} and codes.count(0) == 3, codes
    positions = [sender for kind, sender in tally(desk, m) if kind == "position"]
    assert positions == sorted(ROLES)
