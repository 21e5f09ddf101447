"""Sessions that are alive but stuck: a tick step before the snapshot.

A running launch whose session shows no heartbeat (its session hook's calls and its output
stream both count, the executor turning each event into one) for half of ``stuck_after`` is
nudged: an item its session hook shows at the agent's next tool call. Silent for all of
``stuck_after``, it is stopped (SIGINT, SIGTERM, SIGKILL: ``launch_control.stop_role``, which
records the stop first) with the detail ``stuck: …``, and a note item tells the resumed
session why; the planner relaunches the wake once within its rung, resuming the session
(core/planner.py ``relaunch_due``). A relaunch that gets stuck too pages a person and climbs.
The tick waits for the stopped launch's executor to let go of the role before planning, so
the role never has two agent processes. Only this host's launches: another host's process
group is not this host's to signal (on a desk of several hosts, the planning host's).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, TypedDict

from deskd.core.ladder import RELAUNCHED
from deskd.core.records import STUCK
from deskd.core.timeparse import duration_text
from deskd.store import attempts as attempt_rows
from deskd.store.sessions import current_session

if TYPE_CHECKING:
    from deskd.core.records import Attempt
    from deskd.service.desk.context import DeskContext

RELEASE_WAIT_S = 30.0
"""How long a tick waits for a stopped launch's executor to park its session and let go."""


class StuckJson(TypedDict):
    """One stuck launch a tick acted on (`tick --json` ``stuck``)."""

    role: str
    attempt_id: int
    silent_s: int
    action: str
    """``nudged``, ``stopped`` (resumed next), or ``paged`` (stuck again after a resume)."""


def handle_stuck(ctx: DeskContext) -> list[StuckJson]:
    out: list[StuckJson] = []
    for launch in attempt_rows.running_launches(ctx.conn):
        if launch.launch_host not in (None, ctx.settings.host_id):
            continue  # its process group is another host's to signal
        limit = stuck_after(ctx, launch.role)
        session = current_session(ctx.conn, launch.role)
        beats = [launch.launched_at or ctx.now]
        if session is not None and session.last_heartbeat_at is not None:
            beats.append(session.last_heartbeat_at)
        silent_s = (ctx.now - max(beats)) // 1000
        if silent_s >= limit:
            out.append(_stop(ctx, launch, silent_s))
        elif silent_s >= limit // 2 and _nudge(ctx, launch, silent_s):
            out.append(_said(launch, silent_s, "nudged"))
    return out


def stuck_after(ctx: DeskContext, role: str) -> int:
    config = ctx.desk.roles.get(role)
    return (config.stuck_after if config else None) or ctx.desk.section.stuck_after


def _said(launch: Attempt, silent_s: int, action: str) -> StuckJson:
    return {"role": launch.role, "attempt_id": launch.id, "silent_s": silent_s, "action": action}


def _note(ctx: DeskContext, launch: Attempt, title: str, body: str, key: str, event: str) -> bool:
    """An urgent item for the role (deduplicated on ``key``); True when it is new."""
    from deskd.service.desk.inbox import NewItem, insert

    with ctx.write(launch.role) as conn:
        item = NewItem(
            role=launch.role,
            source="system",
            title=title,
            body=body,
            priority="urgent",
            ref=f"attempt:{launch.id}",
            dedup_key=key,
        )
        _, deduped = insert(conn, item, now=ctx.now)
        if not deduped:
            ctx.event(conn, event, f"attempt:{launch.id}", role=launch.role)
    return not deduped


def _nudge(ctx: DeskContext, launch: Attempt, silent_s: int) -> bool:
    quiet = duration_text(silent_s)
    return _note(
        ctx,
        launch,
        f"deskd: your session has shown no activity for {quiet}",
        "If you are stuck (a hung command, a prompt waiting for input), stop it and end your "
        f"turn. Silent for {duration_text(stuck_after(ctx, launch.role))}, the turn is "
        "stopped and your session resumed.",
        f"stuck-nudge:{launch.id}",
        "launch.nudged",
    )


def _stop(ctx: DeskContext, launch: Attempt, silent_s: int) -> StuckJson:
    """Stop the launch, wait for its executor to let go, and leave the resumed session a note;
    a launch that was itself a stuck relaunch pages a person instead of a second resume."""
    from deskd.service.desk import locks
    from deskd.service.engine.launch_control import stop_role

    quiet = duration_text(silent_s)
    why = f"{STUCK}: no heartbeat for {quiet}"
    stop_role(ctx, launch.role, by="deskd", why=why, interrupt=True)
    deadline = time.monotonic() + RELEASE_WAIT_S
    while locks.held(ctx, locks.role_lock(launch.role)) and time.monotonic() < deadline:
        time.sleep(0.05)  # real time: the executor's own exit, not the desk's clock
    again = RELAUNCHED in launch.reason
    if again:
        from deskd.service.engine.questions import insert_help

        with ctx.write() as conn:
            insert_help(
                conn,
                ctx,
                role=launch.role,
                title=f"{launch.role}'s session got stuck again after a resume",
                body=f"Attempt {launch.id} showed no activity for {quiet} and was stopped, "
                "as the launch before it was. Look at `deskd logs`.",
                actor="deskd",
            )
            ctx.event(conn, "launch.stuck", f"attempt:{launch.id}", role=launch.role)
    else:
        _note(
            ctx,
            launch,
            f"deskd stopped your previous turn: no activity for {quiet}",
            "Your session is resumed. Whatever ran last did not finish; check it before you go on.",
            f"stuck-stop:{launch.id}",
            "launch.stuck",
        )
    return _said(launch, silent_s, "paged" if again else "stopped")
