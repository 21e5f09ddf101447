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
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from deskd.sim.scale import Scale, _database, _stop_relays


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


def _desk_file(roles: int, command: str) -> str:
    listed = "".join(f'\n[[roles]]\nname = "r{i}"\n' for i in range(roles))
    return (
        '[desk]\nname = "race"\ntimezone = "UTC"\ninbox_sources = ["alert"]\n\n'
        f'[agent]\nkind = "claude"\ncommand = "{command}"\ntimeout = "30m"\n{listed}'
    )


def run(race: Race, *, root: Path | None = None) -> RaceReport:
    from deskd.sim.agent import write_launcher

    report = RaceReport(race=asdict(race))
    scale = Scale(
        hosts=race.hosts,
        max_connections=race.max_connections,
        pooler=race.pooler,
        pool_size=race.pool_size,
    )
    started = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="deskd-race-", dir=root) as tmp,
        _database(scale) as (url, direct),
    ):
        base = Path(tmp)
        agent = write_launcher(
            base / "claude",
            {
                "DESKD_SIM_MODE": "long",
                "DESKD_SIM_TOOLS": str(race.tools),
                "DESKD_SIM_TOOL_EVERY": str(race.tool_every_s),
            },
        )
        homes = []
        for h in range(race.hosts):
            home = base / f"h{h}"
            home.mkdir()
            (home / "deskd.toml").write_text(_desk_file(race.rounds, str(agent)), "utf-8")
            homes.append(home)

        def env(h: int) -> dict[str, str]:
            out = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
            out.update(DESKD_HOME=str(homes[h]), DESKD_DB=url, DESKD_HOST_NAME=f"h{h}")
            return out

        def deskd(h: int, *args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [sys.executable, "-m", "deskd", *args],
                env=env(h),
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )

        first = deskd(0, "inbox", "list", "--for", "r0", "--json")  # sets the schema up
        if first.returncode != 0:
            raise RuntimeError(f"the desk did not open: {first.stderr.strip()}")
        try:
            for round_ in range(race.rounds):
                before = _launches(direct)
                done = deskd(0, "inbox", "enqueue", "--for", f"r{round_}", "--source", "alert",
                             "--title", f"round {round_}", "--priority", "urgent")  # fmt: skip
                if done.returncode != 0:
                    report.refused.append(f"enqueue: {done.stderr.strip()[-200:]}")
                report.running_at_start.append(_running(direct))
                procs = [
                    subprocess.Popen(
                        [sys.executable, "-m", "deskd", "tick", "--execute", "--json"],
                        env=env(n % race.hosts),
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
            _stop_relays(homes)
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
