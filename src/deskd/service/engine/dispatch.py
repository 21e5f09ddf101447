"""Hand recorded launches to executors (detached ``deskd agent run``), and heal dead ones.

Runs after the tick's transaction commits: a crash between recording and launching leaves a
``planned`` launch, which the next tick starts again after a minute.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass

from deskd.service.desk import locks
from deskd.service.desk.context import DeskContext
from deskd.store import attempts as attempt_rows
from deskd.store import hosts as desk_hosts
from deskd.store.events import add_event

RESTART_AFTER_MS = 60_000
HOST_DOWN_AFTER_MS = 2 * RESTART_AFTER_MS
"""A launch handed to another host and not started this long: that host stopped ticking."""


@dataclass
class Dispatched:
    attempt_id: int
    role: str
    pid: int
    proc: subprocess.Popen[bytes] | None = None


def start_executor(ctx: DeskContext, attempt_id: int, role: str) -> Dispatched:
    """Start ``deskd agent run --attempt ID`` detached, its output in logs/agents/<role>/."""
    folder = ctx.settings.log_path / "agents" / role
    folder.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["DESKD_HOME"] = str(ctx.settings.home)
    env["DESKD_DB"] = ctx.settings.database
    with (folder / f"{attempt_id}.executor.log").open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "deskd", "agent", "run", "--attempt", str(attempt_id)],
            cwd=str(ctx.settings.home),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # outlives the tick; cron does not kill it with the tick
        )
    return Dispatched(attempt_id=attempt_id, role=role, pid=proc.pid, proc=proc)


def hand_launches(ctx: DeskContext, conn: sqlite3.Connection, launches: dict[int, str]) -> None:
    """Hand each recorded launch (attempt id → role) to the host that will run it: the host
    its role is bound to, else this one (it is alive: it is ticking)."""
    here = ctx.settings.host_id
    for attempt_id, role in launches.items():
        desk_hosts.hand_launch(conn, attempt_id, host=ctx.desk.host_of(role) or here)


def take_launches(ctx: DeskContext) -> list[tuple[int, str]]:
    """The launches handed to this host that no executor was started for: claimed once."""
    with ctx.write() as conn:
        return desk_hosts.take_handed(conn, ctx.settings.host_id, now=ctx.now)


def heal_launches(ctx: DeskContext) -> tuple[list[int], list[int], dict[int, str]]:
    """Restart launches still ``planned`` after a minute; fail ``running`` ones whose executor
    died (the kernel released its role lock). Returns (restarted, failed, role of each).

    On a shared desk a stale launch is restarted here only if this host may run its role:
    one bound to a host that stopped ticking is left to climb the ladder to a person."""
    restart: list[int] = []
    dead: list[int] = []
    roles: dict[int, str] = {}
    conn = ctx.conn
    here = ctx.settings.host_id
    stale, elsewhere = [], []
    for r in attempt_rows.stale_planned(conn, before=ctx.now - RESTART_AFTER_MS):
        if ctx.desk.runs_here(r.role, here):
            stale.append(r)
        elif r.planned_at is not None and r.planned_at < ctx.now - HOST_DOWN_AFTER_MS:
            elsewhere.append(r)
    running = [
        r
        for r in attempt_rows.running_launches(conn)
        if not locks.held(ctx, locks.role_lock(r.role))
    ]
    if not stale and not running and not elsewhere:
        return restart, dead, roles
    with ctx.write() as wconn:
        for row in elsewhere:
            # Its host's tick would have started it within a minute: that host is down. The
            # launch is given up, so the attempt's ladder climbs (notify: a person).
            host = ctx.desk.host_of(row.role)
            if attempt_rows.skip_planned_launch(
                wconn, row.id, reason=f"host {host} is not ticking", now=ctx.now
            ):
                add_event(
                    wconn, at=ctx.now, kind="launch.host_down", role=row.role,
                    subject=f"attempt:{row.id}", detail={"host": host},
                )  # fmt: skip
        for row in stale:
            if desk_hosts.rehand_launch(wconn, row.id, host=here, now=ctx.now):
                restart.append(row.id)
                roles[row.id] = row.role
        for row in running:
            if attempt_rows.finish_launch(
                wconn,
                row.id,
                status="failed",
                now=ctx.now,
                exit_code=None,
                failure_class="transient",
                detail="executor died",
                cost_usd=None,
                hold_until=None,
            ):
                dead.append(row.id)
                add_event(
                    wconn,
                    at=ctx.now,
                    kind="launch.died",
                    role=row.role,
                    subject=f"attempt:{row.id}",
                )
    return restart, dead, roles
