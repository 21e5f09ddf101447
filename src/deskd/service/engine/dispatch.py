"""Hand recorded launches to executors (detached ``deskd agent run``), and heal dead ones.

Runs after the tick's transaction commits: a crash between recording and launching leaves a
``planned`` launch, which the next tick starts again after a minute.

An executor that died without a word most likely met a full disk (an OSError it could
still record is its launch's failure): the healing tick then names the full disk
(``died_detail``), so the ledger says more than ``executor died``.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, NamedTuple

from deskd.adapters.private import open_private, private_dir
from deskd.core.records import EXECUTOR_DIED, HOST_DOWN
from deskd.service.desk import locks
from deskd.service.desk.context import DeskContext
from deskd.service.desk.presence import is_overdue, overdue_after_s
from deskd.service.engine.launch_control import clear_pid, read_pid
from deskd.store import attempts as attempt_rows
from deskd.store import hosts as desk_hosts
from deskd.store.sessions import current_session, park_session, session_by_native

if TYPE_CHECKING:
    import subprocess

    from deskd.core.records import Attempt
    from deskd.store.dialect import Connection

RESTART_AFTER_MS = 60_000
LOW_DISK_BYTES = 16 * 1024 * 1024
"""Below this much free space a disk counts as full: SQLite, the logs and an agent's own
files all need room, and a launch writes more than this."""


class Dispatched(NamedTuple):
    attempt_id: int
    role: str
    pid: int
    proc: subprocess.Popen[bytes] | None = None


class Launch(NamedTuple):
    attempt_id: int
    role: str


class Healed(NamedTuple):
    """What ``heal_launches`` did: launches planned again (to start now) and those failed."""

    restarted: tuple[Launch, ...] = ()
    died: tuple[int, ...] = ()


def start_executor(ctx: DeskContext, attempt_id: int, role: str) -> Dispatched:
    """Start ``deskd agent run --attempt ID`` detached, its output in logs/agents/<role>/."""
    folder = ctx.settings.log_path / "agents" / role
    private_dir(folder)
    env = {**os.environ, "DESKD_HOME": str(ctx.settings.home), "DESKD_DB": ctx.settings.database}
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


def hand_launches(ctx: DeskContext, conn: Connection, launches: dict[int, str]) -> None:
    """Hand each recorded launch (attempt id → role) to the host that will run it: the host
    its role is bound to, else this one (it is alive: it is ticking)."""
    here = ctx.settings.host_id
    for attempt_id, role in launches.items():
        desk_hosts.hand_launch(conn, attempt_id, host=ctx.desk.host_of(role) or here)


def take_launches(ctx: DeskContext) -> tuple[Launch, ...]:
    """The launches handed to this host that no executor was started for: claimed once."""
    with ctx.write() as conn:
        taken = desk_hosts.take_handed(conn, ctx.settings.host_id, now=ctx.now)
    return tuple(Launch(attempt_id=a, role=r) for a, r in taken)


def restart_own_stale(ctx: DeskContext) -> tuple[Launch, ...]:
    """Hand again to this host each launch it may run that is still ``planned`` a minute
    on (its executor never started, or died before claiming it). A tick that found the tick
    lock held does this too: on a desk of several hosts it is often another host's tick
    that plans, and this host's own launches must not wait for it to be the planner."""
    here = ctx.settings.host_id
    stale = [
        r
        for r in attempt_rows.stale_planned(ctx.conn, before=ctx.now - RESTART_AFTER_MS)
        if ctx.desk.runs_here(r.role, here)
    ]
    if not stale:
        return ()
    with ctx.write(row.role for row in stale) as wconn:
        return tuple(
            Launch(attempt_id=row.id, role=row.role)
            for row in stale
            if desk_hosts.rehand_launch(wconn, row.id, host=here, now=ctx.now)
        )


def heal_launches(ctx: DeskContext) -> Healed:
    """Restart launches still ``planned`` after a minute; fail ``running`` ones whose executor
    died (the kernel released its role lock), after ending what is left of their agent's
    process group.

    On a shared desk a stale launch is restarted here only if this host may run its role;
    one handed to a host that stopped ticking (by the hosts table: its own tick restarts
    what it was handed) is given up, so its wake climbs to a person."""
    conn = ctx.conn
    here = ctx.settings.host_id
    # A launch handed to another host, not started within the threshold, on a host with no
    # tick within it either: that host stopped ticking (service/desk/presence.py).
    after_s = overdue_after_s(ctx.settings)
    elsewhere = [
        r
        for r in attempt_rows.stale_planned(conn, before=ctx.now - after_s * 1000)
        if not ctx.desk.runs_here(r.role, here)
    ]
    if elsewhere:
        last = {name: at for name, _, at, _ in desk_hosts.list_hosts(conn)}
        elsewhere = [
            r
            for r in elsewhere
            if is_overdue(last.get(ctx.desk.host_of(r.role) or ""), now=ctx.now, after_s=after_s)
        ]
    running = [
        r
        for r in attempt_rows.running_launches(conn)
        if not locks.held(ctx, locks.role_lock(r.role))
    ]
    restarted = restart_own_stale(ctx)
    if not running and not elsewhere:
        return Healed(restarted=restarted)
    for row in running:
        # The executor died; its agent may not have (a child it started, a tool): end its
        # process group first, so a retry never runs beside a survivor. The group id is the
        # one `deskd agent stop` reads (run/agents/<id>.pid).
        pgid = read_pid(ctx.settings.run_path, row.id)
        if pgid is not None and row.wake_token:
            from deskd.adapters.process import end_agent_group  # subprocess: not in a dry run

            end_agent_group(pgid, row.wake_token)
        clear_pid(ctx.settings.run_path, row.id)
    with ctx.write(row.role for row in (*elsewhere, *running)) as wconn:
        for row in elsewhere:
            _give_up(ctx, wconn, row)
        died = tuple(row.id for row in running if _fail_dead(ctx, wconn, row))
    return Healed(restarted=restarted, died=died)


def _fail_dead(ctx: DeskContext, conn: Connection, row: Attempt) -> bool:
    """Fail a ``running`` launch whose executor is gone, and park the session it was serving
    (its agent is gone too): the role is not busy, and the wake relaunches within its rung,
    resuming that session. False when the launch finished meanwhile."""
    if not attempt_rows.finish_launch(
        conn,
        row.id,
        status="failed",
        now=ctx.now,
        exit_code=None,
        failure_class="transient",
        detail=died_detail(ctx),
        cost_usd=None,
        hold_until=None,
    ):
        return False
    ctx.event(conn, "launch.died", f"attempt:{row.id}", role=row.role)
    session = _served(conn, row)
    if session is not None and park_session(conn, session, now=ctx.now, event="launch.died"):
        detail = {"attempt_id": row.id, "why": EXECUTOR_DIED}
        ctx.event(conn, "session.parked", f"session:{session}", role=row.role, detail=detail)
    return True


def _served(conn: Connection, row: Attempt) -> int | None:
    """The session row the dead launch was serving: the one it reported, else the role's
    live session if the launch's own token stamped it (its session hook ran)."""
    if row.session_id:
        found = session_by_native(conn, row.role, row.session_id)
        return found.id if found is not None else None
    current = current_session(conn, row.role)
    if current is not None and row.wake_token and current.wake_token == row.wake_token:
        return current.id
    return None


def _give_up(ctx: DeskContext, conn: Connection, row: Attempt) -> None:
    """Its host's tick would have started it within a minute: that host is down. The launch
    is given up (never run here: the role is that host's), and the attempt's ladder climbs
    in this tick, not at the rung's SLA."""
    host = ctx.desk.host_of(row.role)
    if attempt_rows.skip_planned_launch(
        conn, row.id, reason=f"host {host} is not ticking", now=ctx.now, failure_class=HOST_DOWN
    ):
        ctx.event(
            conn, "launch.host_down", f"attempt:{row.id}", role=row.role, detail={"host": host}
        )


def died_detail(ctx: DeskContext) -> str:
    """``executor died``, plus the full disk that likely killed it, if one is."""
    folders = [str(ctx.settings.log_path), str(ctx.settings.run_path)]
    if not ctx.settings.shared_database:
        folders.insert(0, os.path.dirname(ctx.settings.database) or ".")
    for folder in folders:
        try:
            found = os.statvfs(folder)
        except OSError:
            continue
        free = found.f_bavail * found.f_frsize
        if free < LOW_DISK_BYTES:
            return (
                f"executor died; the disk holding {folder} is full ({free // 1024} KiB free), "
                "so it could not record why: free space there"
            )
    return "executor died"
