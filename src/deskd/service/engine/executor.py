"""``deskd agent run --attempt ID``: carry out one planned launch and prove whether it landed.

1. the role lock, without blocking (held by another launch → this one is recorded ``skipped:
   role busy`` and the attempt stays live); taking it *before* the claim means a ``running`` launch always
   holds its lock while its executor lives, so a free lock proves the executor died;
2. claim ``planned → running`` by compare-and-set (racing executors start it once);
3. build argv with the role's adapter and a scrubbed environment (launch_command.py); run it
   under a timeout, stdin closed, reading the stream as it arrives (``read_line``, a pure
   step from one frozen ``LaunchResult`` to the next): the native session id is recorded the
   moment it appears, a model turn lands the launch (and marks its prompt's items seen);
4. classify the end from the structured output; retry transient failures inside the rung
   (tenacity, bounded; the first wait is the desk's ``[agent] retry_wait``); record the
   outcome; park the session resumable (never end it).

A retry never starts a second session: it resumes the session the failed try reported (a
real Claude Code or Codex stores the conversation even when the model API refused the call;
Gemini CLI stores none, so its retry spawns again), or reuses the failed try's pre-assigned
id when no session was reported. Every run of the CLI is counted (``launch_runs``) against
``max_launches_per_day``, and retries stop at that cap.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, NamedTuple

from tenacity import Retrying, retry_if_result, stop_after_attempt, wait_exponential

from deskd.adapters.agents.base import SESSION, TRANSIENT, TURN, RunOutcome, RunState
from deskd.adapters.clock import now_ms
from deskd.adapters.locks import LockBusy
from deskd.adapters.private import open_private, private_dir
from deskd.adapters.process import stream_process
from deskd.core.usage import Usage
from deskd.errors import DeskdError, LaunchRefused
from deskd.service.desk import locks
from deskd.service.desk.context import DeskContext
from deskd.service.engine.launch_command import mode_of_try, prepare, runs_left
from deskd.service.engine.launch_control import clear_pid, still_running, write_pid
from deskd.store import attempts as attempt_rows
from deskd.store.events import add_event
from deskd.store.sessions import record_heartbeat

if TYPE_CHECKING:
    from deskd.core.records import Attempt
    from deskd.store.dialect import Connection

USAGE_LIMIT_HOLD_MS = 60 * 60_000
"""How long a usage limit holds the role when the CLI gives no reset time."""
HEARTBEAT_EVERY_MS = 15_000
TAIL_LINES = 50


class LaunchResult(NamedTuple):
    """How one launch went; built up try by try and line by line, never changed in place."""

    attempt_id: int
    status: str
    landed: bool = False
    session_id: str | None = None
    failure_class: str | None = None
    detail: str = ""
    tries: int = 0
    exit_code: int | None = None
    timed_out: bool = False
    output_tail: tuple[str, ...] = ()
    last_beat: int = 0  # when this try last recorded a stream heartbeat (they are throttled)
    reported_session: str | None = None  # a failed try's resumable session: the next resumes it
    assigned_session: str | None = None  # the first spawn's pre-assigned id: a retry reuses it
    # What the tries so far reported using: a retry's run adds to it.
    usage: Usage = Usage()
    cost_usd: float | None = None

    def to_json(self) -> dict[str, object]:
        """What its ``launch.finished`` event and `deskd agent run --json` show: the fields up
        to ``exit_code`` (the rest is the executor's bookkeeping)."""
        shown = self._fields[: self._fields.index("exit_code") + 1]
        return {name: getattr(self, name) for name in shown}


class LineEffects(NamedTuple):
    """What one output line asks of the database: bind a session, land, or a heartbeat."""

    bind: str | None = None
    land: bool = False
    beat: bool = False


def read_line(
    result: LaunchResult,
    line: str,
    *,
    signals: Collection[str],
    native_id: str | None,
    streaming: bool,
    now: int,
) -> tuple[LaunchResult, LineEffects]:
    """The launch after one output line, and the writes it calls for.

    ``signals`` are what the adapter read in the line, ``native_id`` the session id it has
    seen so far and ``streaming`` whether structured events have arrived. A model turn lands
    the launch once; otherwise each event counts as a heartbeat, one per HEARTBEAT_EVERY_MS.
    """
    tail = (*result.output_tail, line)[-TAIL_LINES:]
    bind = native_id if SESSION in signals and native_id != result.session_id else None
    after = result._replace(output_tail=tail, session_id=bind or result.session_id)
    if TURN in signals and not result.landed:
        return after._replace(landed=True), LineEffects(bind=bind, land=True)
    if streaming and now - result.last_beat >= HEARTBEAT_EVERY_MS:
        return after._replace(last_beat=now), LineEffects(bind=bind, beat=True)
    return after, LineEffects(bind=bind)


class RetryPolicy(NamedTuple):
    """Transient launch failures are retried inside the rung, a bounded number of times."""

    attempts: int = 3
    wait_min_s: float = 2.0
    wait_max_s: float = 20.0


def retry_policy(ctx: DeskContext, role: str) -> RetryPolicy:
    """The role's ``retry_wait`` (desk file, ``[agent]`` or the role's own), doubling to 10×."""
    try:
        wait = float(ctx.desk.agent_for(role).retry_wait)
    except DeskdError:
        return RetryPolicy()
    return RetryPolicy(wait_min_s=wait, wait_max_s=10 * wait)


def run_launch(
    ctx: DeskContext, attempt_id: int, *, retry: RetryPolicy | None = None
) -> LaunchResult:
    ctx.slots = int(ctx.settings.executor_connections) if ctx.settings.shared_database else 0
    attempt = attempt_rows.get_attempt(ctx.conn, attempt_id)
    if attempt is None:
        raise LaunchRefused(attempt_id)
    if attempt.primary_id is not None:
        raise LaunchRefused(
            attempt_id, f"rides along with launch {attempt.primary_id}; run that one"
        )
    if attempt.launch_status != "planned" or attempt.outcome != "pending":
        raise LaunchRefused(
            attempt_id,
            f"is not a planned launch (launch {attempt.launch_status or 'none'}, "
            f"outcome {attempt.outcome}): nothing to run",
        )
    if not ctx.desk.runs_here(attempt.role, ctx.settings.host_id):
        raise LaunchRefused(
            attempt_id,
            f"is for role {attempt.role}, bound to host {ctx.desk.host_of(attempt.role)}; "
            f"this is {ctx.settings.host_id} (DESKD_HOST_NAME)",
        )
    try:
        with locks.hold(ctx, locks.role_lock(attempt.role)):
            return _claimed(ctx, attempt, retry=retry or retry_policy(ctx, attempt.role))
    except LockBusy:  # held by another launch of the role, or by a racer about to claim this one
        with ctx.write(attempt.role) as conn:  # (left planned, the tick restarts it in a minute)
            newest = attempt_rows.newest_launch(conn, attempt.role)  # the running one, if any
            busy = newest is not None and newest.launch_status == "running"
            skipped = busy and attempt_rows.skip_planned_launch(
                conn, attempt_id, reason="role busy", now=_now(ctx)
            )
        return LaunchResult(
            attempt_id=attempt_id, status="skipped" if skipped else "refused", detail="role busy"
        )


def _now(ctx: DeskContext) -> int:
    return now_ms(ctx.settings.now, tz=ctx.desk.timezone)


def _claimed(ctx: DeskContext, attempt: Attempt, *, retry: RetryPolicy) -> LaunchResult:
    attempt_id, role = attempt.id, attempt.role
    subject = f"attempt:{attempt_id}"
    with ctx.write(role) as conn:
        if not attempt_rows.claim_launch(conn, attempt_id, now=_now(ctx)):
            raise LaunchRefused(attempt_id, "was claimed by another executor")
        add_event(conn, at=_now(ctx), kind="launch.started", role=role, subject=subject)
    result = LaunchResult(attempt_id=attempt_id, status="running")
    hold: int | None = None
    try:
        result, outcome = _run_with_retries(ctx, attempt, result, retry=retry)
        status = "finished" if outcome.failure_class is None else "failed"
        result = result._replace(
            status="timed_out" if result.timed_out else status,
            failure_class=outcome.failure_class,
            detail=outcome.detail,
        )
        hold = outcome.reset_at_ms if outcome.failure_class == "usage_limit" else None
        if outcome.failure_class == "usage_limit" and hold is None:
            # Claude Code with an API key prints no reset time for a 429; without a hold
            # every tick would launch into the same limit.
            hold = _now(ctx) + USAGE_LIMIT_HOLD_MS
            held = f"(no reset time given: held {USAGE_LIMIT_HOLD_MS // 60_000} min)"
            result = result._replace(detail=f"{result.detail} {held}")
    except DeskdError as exc:  # cannot even start: executable missing, bad workdir …
        result = result._replace(status="failed", failure_class="permanent", detail=exc.message)
    except OSError as exc:
        # A full disk (the agent's log, a settings file): record why while the database can
        # still take it; if it cannot, the healing tick names the full disk (dispatch.py).
        where = f" ({exc.filename})" if exc.filename else ""
        stopped = f"executor stopped: {exc.strerror or exc}{where}"
        result = result._replace(status="failed", failure_class="transient", detail=stopped)
    with ctx.write(role) as conn:
        attempt_rows.finish_launch(
            conn,
            attempt_id,
            status=result.status,
            now=_now(ctx),
            exit_code=result.exit_code,
            failure_class=result.failure_class,
            detail=result.detail,
            cost_usd=result.cost_usd,
            hold_until=hold,
        )
        attempt_rows.record_usage(conn, attempt_id, result.usage)
        if not result.landed:
            # The session hook lands a launch too (a command agent's only proof): the log,
            # the event and `wake list` say what the ledger says, not what the stream showed.
            row = attempt_rows.get_attempt(conn, attempt_id)
            result = result._replace(landed=row is not None and row.landed_at is not None)
        if result.session_id:
            # Parked, never ended: the turn is over and the session is resumable (lesson 29).
            record_heartbeat(
                conn,
                role=role,
                now=_now(ctx),
                native_id=result.session_id,
                state="resting",
                event="launch.finished",
            )
        shown = result.to_json()
        add_event(
            conn, at=_now(ctx), kind="launch.finished", role=role, subject=subject, detail=shown
        )
    # A rollover attempt may ride along with another kind's launch: after_launch looks at
    # every attempt the launch carried (one read when none is a rollover).
    from deskd.service.work.sessions import after_launch

    tail = "\n".join(result.output_tail)
    after_launch(ctx, attempt, output_tail=tail, landed=result.landed, now=_now(ctx))
    return result


def _run_with_retries(
    ctx: DeskContext, attempt: Attempt, result: LaunchResult, *, retry: RetryPolicy
) -> tuple[LaunchResult, RunOutcome]:
    def transient_unlanded(tried: tuple[LaunchResult, RunOutcome] | None) -> bool:
        # A timeout is transient too, but retrying a 30-minute hang inside the rung would
        # hold the role for hours: only quick failures (overload, network) are retried here.
        if tried is None:
            return False
        after, outcome = tried
        return (
            outcome.failure_class == TRANSIENT
            and not after.landed
            and not after.timed_out
            and still_running(ctx, attempt.id)  # `deskd agent stop` ends retries too
            and runs_left(ctx, attempt.role, now=_now(ctx))  # each run counts against the daily cap
        )

    wait_min = retry.wait_min_s
    retrying = Retrying(
        stop=stop_after_attempt(max(1, retry.attempts)),
        wait=wait_exponential(multiplier=wait_min, min=wait_min, max=retry.wait_max_s),
        retry=retry_if_result(transient_unlanded),
        retry_error_callback=lambda state: None,  # out of tries: keep the last one
        before_sleep=lambda state: ctx.close(),
    )
    tried: tuple[LaunchResult, RunOutcome] | None = None
    for one in retrying:
        with one:
            tried = _run_once(ctx, attempt, result if tried is None else tried[0])
        if one.retry_state.outcome is not None and not one.retry_state.outcome.failed:
            one.retry_state.set_result(tried)
    assert tried is not None  # the first try either returned or raised
    return tried


def _run_once(
    ctx: DeskContext, attempt: Attempt, result: LaunchResult
) -> tuple[LaunchResult, RunOutcome]:
    attempt_id, role = attempt.id, attempt.role
    logs = ctx.settings.log_path / "agents" / role
    private_dir(logs)
    mode, session_id = mode_of_try(
        rung=attempt.rung,
        planned_session=attempt.session_id,
        reported=result.reported_session,
        assigned=result.assigned_session,
    )
    prepared = prepare(
        ctx,
        role=role,
        mode=mode,
        prompt=attempt.prompt or "",
        token=str(attempt.wake_token),
        session_id=session_id,
        settings_file=logs / f"{attempt_id}.settings.json",
    )
    adapter, argv, session_id = prepared.adapter, prepared.argv, prepared.spec.session_id
    result = result._replace(tries=result.tries + 1, last_beat=0)
    if mode == "spawn" and result.assigned_session is None:
        result = result._replace(assigned_session=session_id)
    with ctx.write(role) as conn:  # counted before it runs: a crash mid-run still used a launch
        attempt_rows.count_launch_run(conn, attempt_id)
        if session_id and session_id != result.session_id:
            _record_session(ctx, conn, attempt, session_id)
    result = result._replace(session_id=session_id or result.session_id)
    state = RunState(started_at_ms=_now(ctx), usage=result.usage, cost_usd=result.cost_usd)

    def on_line(line: str) -> None:
        nonlocal result
        result, effects = read_line(
            result,
            line,
            signals=adapter.feed(state, line),
            native_id=state.session_id,
            streaming=bool(state.events),
            now=_now(ctx),
        )
        _apply(ctx, attempt, effects, native_id=state.session_id or session_id, now=_now(ctx))

    with open_private(logs / f"{attempt_id}.log", "a", encoding="utf-8") as log:
        log.write(
            f"# deskd launch attempt {attempt_id} role {role} mode {mode}\n# argv[0] {argv[0]}\n"
        )
        ctx.close()  # none held while the agent runs: each write it calls for connects anew
        try:
            finished = stream_process(
                argv,
                env=prepared.env,
                cwd=prepared.workdir,
                timeout_s=prepared.timeout_s,
                on_line=on_line,
                log=log,
                # `deskd agent stop` finds the agent's process group here.
                on_start=lambda pid: write_pid(ctx.settings.run_path, attempt_id, pid),
            )
        finally:
            clear_pid(ctx.settings.run_path, attempt_id)
    outcome = adapter.outcome(
        state,
        exit_code=finished.exit_code,
        timed_out=finished.timed_out,
        stderr_tail=finished.stderr_tail,
    )
    result = result._replace(
        exit_code=finished.exit_code,
        timed_out=finished.timed_out,
        usage=outcome.usage,
        cost_usd=outcome.cost_usd,
    )
    if outcome.session_id and not result.session_id:
        with ctx.write(role) as conn:
            _record_session(ctx, conn, attempt, outcome.session_id)
        result = result._replace(session_id=outcome.session_id)
    reported = state.session_id or outcome.session_id
    if reported and (result.landed or adapter.keeps_unanswered_session):
        result = result._replace(reported_session=reported)
    return result, outcome


def _apply(
    ctx: DeskContext, attempt: Attempt, effects: LineEffects, *, native_id: str | None, now: int
) -> None:
    """The edge of ``read_line``: what one output line called for, in one write."""
    if not (effects.bind or effects.land or effects.beat):
        return
    with ctx.write(attempt.role) as conn:
        if effects.bind:
            _record_session(ctx, conn, attempt, effects.bind)
        if effects.land:  # the model took a turn: landed, the prompt's items seen (lesson 8)
            if attempt_rows.land_with_items(conn, attempt.id, now=now, session=native_id):
                add_event(conn, at=now, kind="launch.landed", subject=f"attempt:{attempt.id}")
        elif effects.beat:
            record_heartbeat(conn, role=attempt.role, now=now, native_id=native_id, event="stream")
    ctx.close()


def _record_session(ctx: DeskContext, conn: Connection, attempt: Attempt, session_id: str) -> None:
    attempt_rows.record_launch_session(conn, attempt.id, session_id=session_id)
    record_heartbeat(conn, role=attempt.role, now=_now(ctx), native_id=session_id, event="launch")
