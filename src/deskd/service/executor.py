"""``deskd agent run --attempt ID``: carry out one planned launch and prove whether it landed.

1. the role lock, without blocking (held → the launch is recorded ``skipped: role busy`` and
   the attempt stays live); taking it *before* the claim means a ``running`` launch always
   holds its lock while its executor lives, so a free lock proves the executor died;
2. claim ``planned → running`` by compare-and-set (racing executors start it once);
3. build argv with the role's adapter and a scrubbed environment; run it under a timeout,
   stdin closed, reading the stream as it arrives: the native session id is recorded the
   moment it appears, a model turn lands the launch (and marks its prompt's items seen);
4. classify the end from the structured output; retry transient failures inside the rung
   (tenacity, bounded); record the outcome; park the session resumable (never end it).
"""

from __future__ import annotations

import os
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tenacity import Retrying, retry_if_result, stop_after_attempt, wait_exponential

from deskd.adapters.agents import (
    SESSION,
    TRANSIENT,
    TURN,
    AgentAdapter,
    LaunchSpec,
    RunOutcome,
    RunState,
    adapter_for,
)
from deskd.adapters.clock import now_ms
from deskd.adapters.locks import LockBusy, role_lock_path, try_lock
from deskd.adapters.private import open_private, private_dir
from deskd.adapters.process import stream_process
from deskd.errors import DeskdError
from deskd.service.context import DeskContext
from deskd.service.launch_env import agent_env
from deskd.store import attempts as attempt_rows
from deskd.store.events import add_event
from deskd.store.sessions import record_heartbeat

HEARTBEAT_EVERY_MS = 15_000


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryPolicy:
    """Transient launch failures are retried inside the rung, a bounded number of times."""

    attempts: int = 3
    wait_min_s: float = 2.0
    wait_max_s: float = 20.0


DEFAULT_RETRY = RetryPolicy()


@dataclass
class LaunchResult:
    attempt_id: int
    status: str
    landed: bool = False
    session_id: str | None = None
    failure_class: str | None = None
    detail: str = ""
    tries: int = 0
    exit_code: int | None = None
    timed_out: bool = False
    output_tail: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "attempt_id": self.attempt_id,
            "status": self.status,
            "landed": self.landed,
            "session_id": self.session_id,
            "failure_class": self.failure_class,
            "detail": self.detail,
            "tries": self.tries,
            "exit_code": self.exit_code,
        }


class LaunchRefused(DeskdError):
    code = "launch_refused"


def run_launch(
    ctx: DeskContext, attempt_id: int, *, retry: RetryPolicy = DEFAULT_RETRY
) -> LaunchResult:
    row = attempt_rows.get_attempt(ctx.conn, attempt_id)
    if row is None:
        raise LaunchRefused(f"no attempt {attempt_id}")
    if row["primary_id"] is not None:
        raise LaunchRefused(
            f"attempt {attempt_id} rides along with launch {row['primary_id']}; run that one"
        )
    if row["launch_status"] != "planned" or row["outcome"] != "pending":
        raise LaunchRefused(
            f"attempt {attempt_id} is not a planned launch (launch {row['launch_status'] or 'none'}, "
            f"outcome {row['outcome']}): nothing to run"
        )
    role = str(row["role"])
    try:
        with try_lock(role_lock_path(ctx.settings.run_path, role)):
            return _claimed(ctx, row, retry=retry)
    except LockBusy:
        with ctx.write() as conn:
            skipped = attempt_rows.skip_planned_launch(
                conn, attempt_id, reason="role busy", now=_now(ctx)
            )
        return LaunchResult(
            attempt_id=attempt_id, status="skipped" if skipped else "refused", detail="role busy"
        )


def _now(ctx: DeskContext) -> int:
    return now_ms(ctx.settings.now)


def _claimed(ctx: DeskContext, row: Any, *, retry: RetryPolicy) -> LaunchResult:
    attempt_id = int(row["id"])
    role = str(row["role"])
    with ctx.write() as conn:
        if not attempt_rows.claim_launch(conn, attempt_id, now=_now(ctx)):
            raise LaunchRefused(f"attempt {attempt_id} was claimed by another executor")
        add_event(
            conn, at=_now(ctx), kind="launch.started", role=role, subject=f"attempt:{attempt_id}"
        )
    result = LaunchResult(attempt_id=attempt_id, status="running")
    try:
        outcome = _run_with_retries(ctx, row, result, retry=retry)
        status = "finished" if outcome.failure_class is None else "failed"
        if result.timed_out:
            status = "timed_out"
        result.status, result.failure_class, result.detail = (
            status,
            outcome.failure_class,
            outcome.detail,
        )
        hold = outcome.reset_at_ms if outcome.failure_class == "usage_limit" else None
        cost = outcome.cost_usd
    except DeskdError as exc:  # cannot even start: executable missing, bad workdir …
        result.status, result.failure_class, result.detail = "failed", "permanent", exc.message
        hold, cost = None, None
    with ctx.write() as conn:
        attempt_rows.finish_launch(
            conn,
            attempt_id,
            status=result.status,
            now=_now(ctx),
            exit_code=result.exit_code,
            failure_class=result.failure_class,
            detail=result.detail,
            cost_usd=cost,
            hold_until=hold,
        )
        if result.session_id:
            # Parked, never ended: the turn is over and the session is resumable (LESSONS 29).
            record_heartbeat(
                conn,
                role=role,
                now=_now(ctx),
                native_id=result.session_id,
                state="resting",
                event="launch.finished",
            )
        add_event(
            conn,
            at=_now(ctx),
            kind="launch.finished",
            role=role,
            subject=f"attempt:{attempt_id}",
            detail=result.to_json(),
        )
    # A rollover attempt may ride along with another kind's launch: after_launch looks at
    # every attempt the launch carried (one read when none is a rollover).
    from deskd.service.session_lifecycle import after_launch

    after_launch(ctx, row, output_tail="\n".join(result.output_tail), landed=result.landed)
    return result


def _run_with_retries(
    ctx: DeskContext, row: Any, result: LaunchResult, *, retry: RetryPolicy
) -> RunOutcome:
    """Run, and run again while the failure is transient and the model never took a turn."""

    def transient_unlanded(outcome: RunOutcome) -> bool:
        # A timeout is transient too, but retrying a 30-minute hang inside the rung would
        # hold the role for hours: only quick failures (overload, network) are retried here.
        return outcome.failure_class == TRANSIENT and not result.landed and not result.timed_out

    retrying = Retrying(
        stop=stop_after_attempt(max(1, retry.attempts)),
        wait=wait_exponential(
            multiplier=retry.wait_min_s, min=retry.wait_min_s, max=retry.wait_max_s
        ),
        retry=retry_if_result(transient_unlanded),
        retry_error_callback=lambda state: state.outcome.result() if state.outcome else None,
    )
    outcome: RunOutcome = retrying(_run_once, ctx, row, result)
    return outcome


@dataclass(frozen=True, slots=True, kw_only=True)
class Prepared:
    """A launch ready to run: the adapter, its argv, environment, folder and timeout."""

    adapter: AgentAdapter
    spec: LaunchSpec
    argv: list[str]
    env: dict[str, str]
    workdir: Path
    timeout_s: float


def prepare(
    ctx: DeskContext,
    *,
    role: str,
    mode: str,
    prompt: str,
    token: str,
    session_id: str | None,
    settings_file: Path | None,
) -> Prepared:
    """Build what a launch runs (also `deskd agent command`, which prints it without running).

    A missing executable or workdir is one actionable refusal naming what was searched.
    """
    agent = ctx.desk.agent_for(role, ctx.settings)
    adapter = adapter_for(agent["kind"])
    if mode == "spawn" and agent["kind"] == "claude" and session_id is None:
        session_id = str(uuid.uuid4())  # pre-assigned, so it is known before the first line
    from deskd.service.channels import secret_names

    env = agent_env(
        dict(os.environ),
        role=role,
        token=token,
        home=ctx.settings.home,
        db=ctx.settings.db_path,
        session_id=session_id,
        withheld=secret_names(ctx.settings, ctx.desk),
    )
    executable = _resolve(agent["command"] or agent["kind"], env["PATH"])
    settings_path = None
    if agent["kind"] == "claude" and settings_file is not None:
        from deskd.adapters.claude_settings import (
            desk_env,
            hook_executable,
            run_settings,
            write_settings,
        )

        settings_path = write_settings(
            settings_file,
            run_settings(
                hook_command=hook_executable(),
                env={
                    **desk_env(home=ctx.settings.home, db=ctx.settings.db_path, role=role),
                    "DESKD_WAKE_TOKEN": token,
                },
            ),
        )
    spec = LaunchSpec(
        kind=agent["kind"],
        command=executable,
        args=tuple(agent["args"]),
        mode=mode,
        prompt=prompt,
        session_id=session_id,
        model=agent["model"],
        allowed_tools=tuple(agent["allowed_tools"]),
        settings_path=str(settings_path) if settings_path else None,
        role=role,
    )
    return Prepared(
        adapter=adapter,
        spec=spec,
        argv=adapter.argv(spec),
        env=env,
        workdir=_workdir(ctx, role),
        timeout_s=float(agent["timeout"]),
    )


def _run_once(ctx: DeskContext, row: Any, result: LaunchResult) -> RunOutcome:
    result.tries += 1
    attempt_id = int(row["id"])
    role = str(row["role"])
    logs = ctx.settings.log_path / "agents" / role
    private_dir(logs)
    mode = "resume" if row["rung"] == "resume" and row["session_id"] else "spawn"
    prepared = prepare(
        ctx,
        role=role,
        mode=mode,
        prompt=str(row["prompt"] or ""),
        token=str(row["wake_token"]),
        session_id=row["session_id"] if mode == "resume" else None,
        settings_file=logs / f"{attempt_id}.settings.json",
    )
    adapter, argv, session_id = prepared.adapter, prepared.argv, prepared.spec.session_id
    state = RunState()
    if session_id:
        _bind_session(ctx, attempt_id, role, session_id, result)
    last_beat = [0]

    def on_line(line: str) -> None:
        result.output_tail.append(line)
        del result.output_tail[:-50]
        signals = adapter.feed(state, line)
        if SESSION in signals and state.session_id:
            _bind_session(ctx, attempt_id, role, state.session_id, result)
        if TURN in signals and not result.landed:
            _land(ctx, attempt_id, role, state.session_id or session_id)
            result.landed = True
        elif state.events and _now(ctx) - last_beat[0] >= HEARTBEAT_EVERY_MS:
            # Each structured event counts as a heartbeat, throttled to spare the database.
            last_beat[0] = _now(ctx)
            with ctx.write() as conn:
                record_heartbeat(
                    conn,
                    role=role,
                    now=last_beat[0],
                    native_id=state.session_id or session_id,
                    event="stream",
                )

    with open_private(logs / f"{attempt_id}.log", "a", encoding="utf-8") as log:
        log.write(
            f"# deskd launch attempt {attempt_id} role {role} mode {mode}\n# argv[0] {argv[0]}\n"
        )
        finished = stream_process(
            argv,
            env=prepared.env,
            cwd=prepared.workdir,
            timeout_s=prepared.timeout_s,
            on_line=on_line,
            log=log,
        )
    result.exit_code = finished.exit_code
    result.timed_out = finished.timed_out
    outcome = adapter.outcome(
        state,
        exit_code=finished.exit_code,
        timed_out=finished.timed_out,
        stderr_tail=finished.stderr_tail,
    )
    if outcome.session_id and not result.session_id:
        _bind_session(ctx, attempt_id, role, outcome.session_id, result)
    return outcome


def _resolve(command: str, path: str) -> str:
    found = (
        shutil.which(command, path=path)
        if "/" not in command
        else (command if Path(command).is_file() else None)
    )
    if not found:
        raise DeskdError(
            f"agent executable {command!r} not found (PATH searched: {path}); install it or set "
            "[agent] command in deskd.toml (or DESKD_AGENT_CMD)",
            code="agent_missing",
        )
    return found


def _workdir(ctx: DeskContext, role: str) -> Path:
    configured = ctx.desk.role(role).workdir
    folder = Path(configured).expanduser() if configured else ctx.settings.home
    if not folder.is_absolute():
        folder = ctx.settings.home / folder
    if not folder.is_dir():
        raise DeskdError(f"workdir {folder} of role {role!r} does not exist", code="bad_workdir")
    return folder


def _bind_session(
    ctx: DeskContext, attempt_id: int, role: str, session_id: str, result: LaunchResult
) -> None:
    if result.session_id == session_id:
        return
    result.session_id = session_id
    with ctx.write() as conn:
        attempt_rows.record_launch_session(conn, attempt_id, session_id=session_id)
        record_heartbeat(conn, role=role, now=_now(ctx), native_id=session_id, event="launch")


def _land(ctx: DeskContext, attempt_id: int, role: str, session_id: str | None) -> None:
    """The model took a turn: stamp ``landed_at`` and mark the prompt's items seen (LESSONS 8)."""
    with ctx.write() as conn:
        land_launch(conn, attempt_id, now=_now(ctx), session=session_id)


def land_launch(conn: Any, attempt_id: int, *, now: int, session: str | None) -> bool:
    if not attempt_rows.land_with_items(conn, attempt_id, now=now, session=session):
        return False
    add_event(conn, at=now, kind="launch.landed", subject=f"attempt:{attempt_id}")
    return True


def describe_launch(
    ctx: DeskContext, *, role: str, mode: str, session_id: str | None
) -> dict[str, Any]:
    """What `deskd agent command` prints: argv and the variables deskd sets or scrubs."""
    from deskd.errors import InvalidValue
    from deskd.service.launch_env import DROPPED, DROPPED_PREFIXES

    ctx.desk.role(role)
    if mode not in ("spawn", "resume"):
        raise InvalidValue("--mode", mode, "spawn or resume")
    if mode == "resume" and not session_id:
        raise InvalidValue("--session-id", "", "resume needs the native session id")
    prepared = prepare(
        ctx,
        role=role,
        mode=mode,
        prompt="<the wake prompt>",
        token="<wake token>",
        session_id=session_id,
        settings_file=None,
    )
    argv = list(prepared.argv)
    if prepared.spec.kind == "claude":
        argv += ["--settings", "<per-run settings file>"] if "--settings" not in argv else []
    shown = {
        k: v for k, v in prepared.env.items() if k.startswith("DESKD_") or k in ("PATH", "HOME")
    }
    from deskd.service.channels import secret_names

    withheld = secret_names(ctx.settings, ctx.desk)
    dropped = sorted(
        k for k in os.environ if k in DROPPED or k in withheld or k.startswith(DROPPED_PREFIXES)
    )
    return {"argv": argv, "env": shown, "dropped": dropped, "workdir": str(prepared.workdir)}
