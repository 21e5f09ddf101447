"""The escalation ladder: where a demand starts, where it climbs, when the badge recycles."""

from __future__ import annotations

from deskd.core.presence import is_busy
from deskd.core.records import (
    EXECUTOR_DIED,
    LAUNCH_RUNGS,
    RUNGS,
    STUCK,
    Attempt,
    Demand,
    Policy,
    RoleView,
)

IN_FLIGHT = frozenset({"planned", "running"})


def role_busy(role: RoleView) -> bool:
    """Busy: online or suspect, or a deskd launch for the role still running."""
    return is_busy(role.presence) or role.launch_running


def natural_start(role: RoleView) -> str:
    """Busy → ``session``; a resumable session (idle or dead) → ``resume``; else ``spawn``."""
    if role_busy(role):
        return "session"
    if role.session_id:
        return "resume"
    return "spawn"


def _canonical(rung: str) -> int:
    return RUNGS.index(rung)


def first_rung_from(policy: Policy, rung: str) -> str:
    """The desk ladder's first rung at or above ``rung`` (the desk may drop rungs)."""
    names = policy.rung_names()
    return next((n for n in names if _canonical(n) >= _canonical(rung)), names[-1])


def start_rung(policy: Policy, role: RoleView, demand: Demand) -> str:
    rung = natural_start(role)
    if demand.floor and _canonical(demand.floor) > _canonical(rung):
        rung = demand.floor
    return _capped(policy, first_rung_from(policy, rung), demand)


def next_rung(policy: Policy, current: str, role: RoleView, demand: Demand) -> str:
    """The rung above ``current``, skipping ``resume`` when there is no session to resume.

    At the demand's cap (homework never leaves the machine) the same rung is retried.
    """
    names = policy.rung_names()
    index = names.index(current) if current in names else len(names) - 1
    for name in names[index + 1 :]:
        if name == "resume" and not role.session_id:
            continue
        return _capped(policy, name, demand, fallback=current)
    return current


def _capped(policy: Policy, rung: str, demand: Demand, fallback: str | None = None) -> str:
    if demand.cap is None or _canonical(rung) <= _canonical(demand.cap):
        return rung
    if fallback is not None:
        return fallback
    allowed = [n for n in policy.rung_names() if _canonical(n) <= _canonical(demand.cap)]
    return allowed[-1] if allowed else rung


def recycle_after_s(policy: Policy, recycles: int) -> int:
    """How long the terminal rung waits before retrying: 30 min, 1 h, 2 h … capped (8 h)."""
    return int(min(policy.recycle_base_s * (2 ** min(recycles, 16)), policy.recycle_cap_s))


def is_terminal(policy: Policy, rung: str) -> bool:
    return rung == policy.rung_names()[-1]


def went_dead(policy: Policy, role: RoleView, demand: Demand, current: Attempt) -> bool:
    """The role's presence turned ``dead`` after ``current`` was attempted, and starting over
    now would pick a lower (launching) rung: a role that was busy when its launch rung was
    skipped is re-evaluated once per death, not left to the badge's recycle."""
    if role.dead_since is None or current.attempted_at >= role.dead_since:
        return False
    if current.launch_status in IN_FLIGHT or role.launch_running:
        return False
    start = start_rung(policy, role, demand)
    return start in LAUNCH_RUNGS and RUNGS.index(start) < RUNGS.index(current.rung)


RELAUNCHED = " (relaunched: its executor died or it got stuck)"
"""How the reason of an attempt relaunched after its executor died, or after deskd stopped it
as stuck, says so (once per rung)."""


def relaunch_due(role: RoleView, current: Attempt) -> bool:
    """``current``'s launch died with its executor, the role is not busy (the healing tick
    parked its session), and it is not itself a relaunch: one relaunch per rung, no loop."""
    died = current.launch_status == "failed" and (current.launch_detail or "").startswith(
        (EXECUTOR_DIED, STUCK)
    )  # "executor died", "executor died; the disk holding … is full", "stuck: …"
    return died and not role_busy(role) and RELAUNCHED not in current.reason
