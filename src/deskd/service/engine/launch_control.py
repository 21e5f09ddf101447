"""Operator verbs on launches: stop a role's running agent, read its transcripts, wait for a
role to reach a state.

The executor writes the agent's process-group id to ``run/agents/<attempt>.pid`` while the
agent runs (``write_pid`` / ``clear_pid``); ``stop_role`` records the stop on the attempt
FIRST — the executor's own finish is a compare-and-set on ``running``, so it cannot
overwrite "stopped", and its retry loop sees the launch is no longer running — then ends
the whole process group (SIGTERM, and SIGKILL when it lingers).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from deskd.core.sessions import is_busy
from deskd.errors import InvalidValue, NoTranscript, NotRunning, PeopleCommand
from deskd.service.desk.context import DeskContext
from deskd.service.desk.presence import derive
from deskd.store import attempts as attempt_rows
from deskd.store.sessions import current_session

if TYPE_CHECKING:
    from deskd.core.records import Attempt
    from deskd.store.records import JSON

STOPPED = "stopped"
GRACE_S = 3.0
"""How long a stopped agent gets to exit on SIGTERM before its group is killed."""


def pid_path(run_dir: Path, attempt_id: int) -> Path:
    return run_dir / "agents" / f"{attempt_id}.pid"


def write_pid(run_dir: Path, attempt_id: int, pid: int) -> None:
    path = pid_path(run_dir, attempt_id)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(f"{pid}\n", encoding="utf-8")


def clear_pid(run_dir: Path, attempt_id: int) -> None:
    pid_path(run_dir, attempt_id).unlink(missing_ok=True)


def read_pid(run_dir: Path, attempt_id: int) -> int | None:
    try:
        return int(pid_path(run_dir, attempt_id).read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None


def still_running(ctx: DeskContext, attempt_id: int) -> bool:
    """Whether the launch is still ``running`` (False once stopped): the executor asks
    before retrying, so a stopped launch is not started again."""
    row = attempt_rows.get_attempt(ctx.conn, attempt_id)
    return row is not None and row.launch_status == "running"


def running_launch(ctx: DeskContext, role: str) -> Attempt | None:
    return next((r for r in attempt_rows.running_launches(ctx.conn) if r.role == role), None)


def stop_role(
    ctx: DeskContext,
    role: str,
    *,
    by: str,
    grace_s: float = GRACE_S,
    why: str | None = None,
    interrupt: bool = False,
) -> JSON:
    """End the running launch of ``role``: record it (``why``: the detail, default who
    stopped it), then signal its process group (``interrupt``: SIGINT before SIGTERM, so a
    CLI that handles it can save its session first). Returns `agent stop --json`: the
    launch recorded as stopped and what signalling its group did."""
    if ctx.settings.role:
        raise PeopleCommand("deskd agent stop", "an agent ends its own turn")
    ctx.desk.role(role)
    row = running_launch(ctx, role)
    if row is None:
        raise NotRunning(role)
    attempt_id = row.id
    pid = read_pid(ctx.settings.run_path, attempt_id)
    detail = why or f"stopped by {by}"
    with ctx.write() as conn:
        attempt_rows.finish_launch(
            conn,
            attempt_id,
            status="failed",
            now=ctx.now,
            exit_code=None,
            failure_class=STOPPED,
            detail=detail,
            cost_usd=None,
            hold_until=None,
        )
        subject = f"attempt:{attempt_id}"
        ctx.event(conn, "launch.stopped", subject, role=role, actor=by, detail={"pid": pid})
    first = (signal.SIGINT, signal.SIGTERM) if interrupt else (signal.SIGTERM,)
    signalled = (
        _end_group(pid, first, grace_s=grace_s) if pid is not None else "no process recorded"
    )
    return {"role": role, "attempt_id": attempt_id, "pid": pid, "result": signalled}


def _end_group(pid: int, signals: tuple[signal.Signals, ...], *, grace_s: float) -> str:
    """Send the process group led by ``pid`` each of ``signals`` in turn, ``grace_s`` apart,
    until it is gone; SIGKILL it if it outlives them.

    The agent was started in its own session, so its pid is its group id: this ends the
    agent CLI and every child it started, never the executor or the caller."""
    for n, sig in enumerate(signals):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return "already gone" if n == 0 else "terminated"
        except PermissionError:
            return "not permitted to signal it"
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline:
            if not _alive(pid):
                return "interrupted" if sig == signal.SIGINT else "terminated"
            time.sleep(0.05)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        return "terminated"
    return "killed"


def _alive(pid: int) -> bool:
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie leader still "exists" until its parent (the executor) reaps it.
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


# -- transcripts ----------------------------------------------------------------------


def agent_logs(ctx: DeskContext, role: str, attempt_id: int | None) -> tuple[int, Path]:
    """(attempt id, transcript path) of the role's launch ``attempt_id`` (default: latest)."""
    ctx.desk.role(role)
    folder = ctx.settings.log_path / "agents" / role
    found = sorted((int(p.stem), p) for p in folder.glob("*.log") if p.stem.isdigit())
    if attempt_id is None:
        if not found:
            raise NoTranscript(role, folder)
        return found[-1]
    for number, path in found:
        if number == attempt_id:
            return number, path
    raise InvalidValue(
        "--attempt",
        attempt_id,
        f"{role} has transcripts for attempts: "
        + (", ".join(str(n) for n, _ in found[-10:]) or "none"),
    )


# -- waiting (`deskd wait --until STATE`) ---------------------------------------------------
# The loop that asks again until a deadline lives in the CLI (the one place that reads the
# wall clock); ``reached`` reads the database once, at the context's ``now``.

STATES = ("resting", "landed", "idle")
"""resting: its session ended its turn; landed: its newest launch took a model turn;
idle: nothing runs for it (no launch in flight, presence not online or suspect)."""


class Check(NamedTuple):
    reached: bool
    detail: str


def check_state(state: str) -> str:
    if state not in STATES:
        raise InvalidValue("--until", state, "choose one of: " + ", ".join(STATES))
    return state


def reached(ctx: DeskContext, role: str, state: str) -> Check:
    """Whether ``role`` is in ``state`` now, and what it is instead when not."""
    ctx.desk.role(role)
    check_state(state)
    session = current_session(ctx.conn, role)
    presence = derive(ctx, session)
    if state == "resting":
        resting = session is not None and session.state == "resting"
        return Check(reached=resting, detail=f"presence {presence}")
    if state == "landed":
        launch = attempt_rows.newest_launch(ctx.conn, role)
        if launch is None:
            return Check(reached=False, detail="no launch yet")
        landed = launch.landed_at is not None
        status = launch.launch_status
        return Check(
            reached=landed,
            detail=f"attempt {launch.id} {'landed' if landed else 'not landed'} ({status})",
        )
    flying = attempt_rows.launches_in_flight(ctx.conn, role)
    idle = flying == 0 and not is_busy(presence)
    return Check(reached=idle, detail=f"presence {presence}, {flying} launch(es) in flight")
