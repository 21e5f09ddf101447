"""Hand recorded launches to executors (detached ``deskd agent run``), and heal dead ones.

Runs after the tick's transaction commits: a crash between recording and launching leaves a
``planned`` launch, which the next tick starts again after a minute.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deskd.adapters.locks import is_held, role_lock_path
from deskd.adapters.private import open_private, private_dir
from deskd.service.desk.context import DeskContext
from deskd.service.engine.launch_control import clear_pid, read_pid
from deskd.store import attempts as attempt_rows
from deskd.store.events import add_event

if TYPE_CHECKING:
    import subprocess

    from deskd.store.records.attempts import Attempt

RESTART_AFTER_MS = 60_000


@dataclass(frozen=True, slots=True, kw_only=True)
class Dispatched:
    attempt_id: int
    role: str
    pid: int
    proc: subprocess.Popen[bytes] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Launch:
    """A launch to hand to an executor: its primary attempt and the role it runs as."""

    attempt_id: int
    role: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Healed:
    """What ``heal_launches`` did: launches planned again (to start now) and those failed."""

    restarted: tuple[Launch, ...] = ()
    died: tuple[int, ...] = ()


def start_executor(ctx: DeskContext, attempt_id: int, role: str) -> Dispatched:
    """Start ``deskd agent run --attempt ID`` detached, its output in logs/agents/<role>/."""
    folder = ctx.settings.log_path / "agents" / role
    private_dir(folder)
    env = dict(os.environ)
    env["DESKD_HOME"] = str(ctx.settings.home)
    env["DESKD_DB"] = str(ctx.settings.db_path)
    import subprocess  # an executing tick's launches only, not a dry run

    with open_private(folder / f"{attempt_id}.executor.log", "ab") as out:
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


def heal_launches(ctx: DeskContext) -> Healed:
    """Restart launches still ``planned`` after a minute; fail ``running`` ones whose executor
    died (the kernel released its role lock), after ending what is left of their agent's
    process group."""
    conn = ctx.conn
    stale = attempt_rows.stale_planned(conn, before=ctx.now - RESTART_AFTER_MS)
    running = [
        r
        for r in attempt_rows.running_launches(conn)
        if not is_held(role_lock_path(ctx.settings.run_path, r.role))
    ]
    if not stale and not running:
        return Healed()
    for row in running:
        # The executor died; its agent may not have (a child it started, a tool): end its
        # process group first, so a retry never runs beside a survivor. The group id is the
        # one `deskd agent stop` reads (run/agents/<id>.pid).
        pgid = read_pid(ctx.settings.run_path, row.id)
        if pgid is not None and row.wake_token:
            from deskd.adapters.process import end_agent_group  # subprocess: not in a dry run

            end_agent_group(pgid, row.wake_token)
        clear_pid(ctx.settings.run_path, row.id)
    with ctx.write() as wconn:
        restarted = tuple(
            Launch(attempt_id=row.id, role=row.role)
            for row in stale
            if attempt_rows.replan_launch(wconn, row.id, now=ctx.now)
        )
        died = tuple(row.id for row in running if _fail_dead(ctx, wconn, row))
    return Healed(restarted=restarted, died=died)


def _fail_dead(ctx: DeskContext, conn: sqlite3.Connection, row: Attempt) -> bool:
    """Fail a ``running`` launch whose executor is gone; False when it finished meanwhile."""
    if not attempt_rows.finish_launch(
        conn,
        row.id,
        status="failed",
        now=ctx.now,
        exit_code=None,
        failure_class="transient",
        detail="executor died",
        cost_usd=None,
        hold_until=None,
    ):
        return False
    add_event(conn, at=ctx.now, kind="launch.died", role=row.role, subject=f"attempt:{row.id}")
    return True
