"""Racing executing ticks on several simulated hosts of one PostgreSQL desk, for the scale
bench (``bench/scale.py --race``): straight to the server or through PgBouncer.

Each round gives one more role an urgent item and starts ``ticks`` executing ticks at once,
spread over ``hosts`` desk folders (each its own ``DESKD_HOST_NAME``). The launched agents
are the simulated ``claude -p`` in ``long`` mode, so earlier rounds' agents still run while
later rounds' ticks race. Reported per round: the launches it made (exactly one is right),
the leases left once its ticks exited (only the live agents' role leases are right), and at
the end the launches that did not finish (an agent killed as "executor died" is one).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from harness.scale import Scale, hosts


@dataclass(frozen=True)
class Race:
    hosts: int = 3
    ticks: int = 24
    rounds: int = 5
    pooler: str = "transaction"
    pool_size: int = 20
    max_connections: int = 40
    tools: int = 6
    tool_every_s: float = 5.0
    give_up_s: float = 900.0


@dataclass
class RaceReport:
    race: dict[str, Any]
    launches_per_round: list[int] = field(default_factory=list)
    running_at_start: list[int] = field(default_factory=list)
    """Per round, earlier rounds' launches still running when its ticks started."""
    leftover_leases: list[list[str]] = field(default_factory=list)
    """Per round, the leases held once its ticks exited, other than live agents' role leases."""
    died: list[int] = field(default_factory=list)
    """Launches any tick reported dead (its executor gone): a live agent killed is one."""
    not_finished: list[str] = field(default_factory=list)
    """Launches that ended other than ``finished``, ``attempt id: status``."""
    refused: list[str] = field(default_factory=list)
    seconds: float = 0.0


def run(race: Race, *, root: Path | None = None) -> RaceReport:
    report = RaceReport(race=asdict(race))
    scale = Scale(
        hosts=race.hosts,
        max_connections=race.max_connections,
        pooler=race.pooler,
        pool_size=race.pool_size,
    )
    started = time.monotonic()
    roles = [(f"r{i}", None) for i in range(race.rounds)]
    sim_env = {"DESKD_SIM_TOOLS": str(race.tools), "DESKD_SIM_TOOL_EVERY": str(race.tool_every_s)}
    with hosts(scale, "race", roles, sim_env, root=root) as desk:
        direct = desk.direct
        try:
            for round_ in range(race.rounds):
                before = _launches(direct)
                done = desk.deskd(0, "inbox", "enqueue", "--for", f"r{round_}", "--source", "alert",
                                  "--title", f"round {round_}", "--priority", "urgent")  # fmt: skip
                if done.returncode != 0:
                    report.refused.append(f"enqueue: {done.stderr.strip()[-200:]}")
                report.running_at_start.append(_running(direct))
                procs = [
                    subprocess.Popen(
                        [sys.executable, "-m", "deskd", "tick", "--execute", "--json"],
                        env=desk.env(n % race.hosts),
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        text=True,
                    )
                    for n in range(race.ticks)
                ]
                for proc in procs:
                    out, err = proc.communicate(timeout=600)
                    if proc.returncode != 0:
                        report.refused.append(f"tick: {err.strip()[-200:]}")
                        continue
                    report.died.extend(json.loads(out).get("died") or [])
                report.launches_per_round.append(len(_launches(direct) - before))
                report.leftover_leases.append(_stray_leases(direct))
            deadline = time.monotonic() + race.give_up_s
            while _live(direct) and time.monotonic() < deadline:
                time.sleep(2.0)
            report.not_finished = _not_finished(direct)
        finally:
            desk.stop_relays()
    report.seconds = round(time.monotonic() - started, 1)
    return report


def _query(direct: str, sql: str) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(direct, autocommit=True) as conn:
        return [tuple(r) for r in conn.execute(sql).fetchall()]


def _launches(direct: str) -> set[int]:
    rows = _query(
        direct,
        "SELECT id FROM attempts WHERE launch_status IS NOT NULL AND primary_id IS NULL "
        "AND launch_status <> 'skipped'",
    )
    return {int(r[0]) for r in rows}


def _stray_leases(direct: str) -> list[str]:
    """Leases other than the role leases of launches still running."""
    held = [str(r[0]) for r in _query(direct, "SELECT name FROM leases")]
    running = {
        f"role-{r[0]}"
        for r in _query(
            direct, "SELECT role FROM attempts WHERE launch_status IN ('planned', 'running')"
        )
    }
    return [name for name in held if name not in running]


def _running(direct: str) -> int:
    rows = _query(direct, "SELECT count(*) FROM attempts WHERE launch_status = 'running'")
    return int(rows[0][0]) if rows else 0


def _live(direct: str) -> bool:
    rows = _query(
        direct, "SELECT count(*) FROM attempts WHERE launch_status IN ('planned', 'running')"
    )
    return bool(rows and rows[0][0])


def _not_finished(direct: str) -> list[str]:
    rows = _query(
        direct,
        "SELECT id, launch_status FROM attempts WHERE launch_status IS NOT NULL "
        "AND primary_id IS NULL AND launch_status NOT IN ('finished', 'skipped') ORDER BY id",
    )
    return [f"{r[0]}: {r[1]}" for r in rows]
