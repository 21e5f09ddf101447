"""The escalation ladder: its rungs as one table, where a demand starts, where it climbs, when
the badge recycles.

``RUNGS`` is the only place a rung's behaviour is declared; every other module asks it
(``RUNGS[name].launches``) rather than comparing names. docs/architecture.md "Adding a rung"
says what else a new rung needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NamedTuple

from deskd.core.sessions import is_busy

if TYPE_CHECKING:  # core/records.py stays out of the agent commands that read the desk file
    from deskd.core.records import Attempt, Demand, Policy, RoleView


class RungSpec(NamedTuple):
    """What trying a rung does, when it is due and what lands it."""

    sla_s: int | None
    """Its default SLA (the desk file's ``[[ladder]] sla``); None for the rung that waits."""
    in_session: bool = False
    """Nothing is launched: a busy role's session hook shows the items, and that holds the
    rung for the items' own SLA. A busy role starts here."""
    launches: bool = False
    """``deskd agent run`` launches the agent (resuming the role's session when the rung
    ``resumes``, else a new one); the launch lands with the model's first turn."""
    resumes: bool = False
    """It continues the role's session: skipped while the role has none to resume."""
    pages: bool = False
    """Reaching it pages a person through the role's channels (`deskd wake ack` lands it)."""
    waits: bool = False
    """It waits for a person with no SLA of its own: red on the board until someone acts."""
    start_why: str = ""
    """Why a new demand starts here (`wake explain`); empty: it never starts one by itself."""

    @property
    def machine(self) -> bool:
        """Tried without a person: a new urgent item drops a person's rung back to these."""
        return self.in_session or self.launches


RUNGS: dict[str, RungSpec] = {
    "session": RungSpec(
        sla_s=60,
        in_session=True,
        start_why="the role is busy ({presence}): its session hook surfaces items",
    ),
    "resume": RungSpec(
        sla_s=120,
        launches=True,
        resumes=True,
        start_why="the role has a resumable session ({session_id})",
    ),
    "spawn": RungSpec(sla_s=180, launches=True, start_why="the role has no resumable session"),
    "notify": RungSpec(sla_s=300, pages=True),
    "badge": RungSpec(sla_s=None, waits=True),
}
"""The escalation ladder's rungs, lowest first (docs/contract.md "Values"). A desk's
``[[ladder]]`` may change their SLAs and drop rungs, not reorder them."""

LAUNCH_RUNGS: frozenset[str] = frozenset(n for n, r in RUNGS.items() if r.launches)
PAGE_RUNG = next(n for n, r in RUNGS.items() if r.pages)
"""Where demand owed by a person starts (a request for help, a wind-down given up)."""
LAST_MACHINE_RUNG = [n for n, r in RUNGS.items() if r.machine][-1]
"""Homework never leaves the machine: idle-task demand stops here."""
RESUME_RUNG = next(n for n, r in RUNGS.items() if r.resumes)
"""A wind-down resumes the session it ends: spawning a new one could not wind anything down."""
DEFAULT_LADDER: tuple[tuple[str, int | None], ...] = tuple((n, r.sla_s) for n, r in RUNGS.items())

if TYPE_CHECKING:
    RungName = str
else:  # the desk file's ``rung`` (config/desk.py): pydantic names the choices when refused
    RungName = Literal[tuple(RUNGS)]

IN_FLIGHT = frozenset({"planned", "running"})


def role_busy(role: RoleView) -> bool:
    """Busy: online or suspect, or a deskd launch for the role still running."""
    return is_busy(role.presence) or role.launch_running


def reaches(rung: str, role: RoleView) -> bool:
    """Whether ``rung`` can reach ``role`` now: the session hook needs the role busy, a
    resume needs a session to resume."""
    spec = RUNGS[rung]
    return (role_busy(role) or not spec.in_session) and (bool(role.session_id) or not spec.resumes)


def natural_start(role: RoleView) -> str:
    """The lowest rung that reaches ``role``: busy → ``session``; a resumable session (idle or
    dead) → ``resume``; else ``spawn``."""
    return next(n for n in RUNGS if reaches(n, role))


def explain_start(role: RoleView) -> str:
    """Where a new demand for ``role`` would start, and why (for `wake explain`)."""
    start = natural_start(role)
    why = RUNGS[start].start_why.format(presence=role.presence, session_id=role.session_id)
    return f"starts at {start}: {why}"


def rank(rung: str) -> int:
    """Where ``rung`` stands on the whole ladder, lowest first (a desk may drop rungs)."""
    return list(RUNGS).index(rung)


def first_rung_from(policy: Policy, rung: str) -> str:
    """The desk ladder's first rung at or above ``rung`` (the desk may drop rungs)."""
    names = policy.rung_names()
    return next((n for n in names if rank(n) >= rank(rung)), names[-1])


def start_rung(policy: Policy, role: RoleView, demand: Demand) -> str:
    rung = natural_start(role)
    if demand.floor and rank(demand.floor) > rank(rung):
        rung = demand.floor
    return _capped(policy, first_rung_from(policy, rung), demand)


def next_rung(policy: Policy, current: str, role: RoleView, demand: Demand) -> str:
    """The rung above ``current``, skipping those that cannot reach the role (``resume``
    with no session to resume).

    At the demand's cap (homework never leaves the machine) the same rung is retried.
    """
    names = policy.rung_names()
    index = names.index(current) if current in names else len(names) - 1
    for name in names[index + 1 :]:
        if reaches(name, role):
            return _capped(policy, name, demand, fallback=current)
    return current


def _capped(policy: Policy, rung: str, demand: Demand, fallback: str | None = None) -> str:
    if demand.cap is None or rank(rung) <= rank(demand.cap):
        return rung
    if fallback is not None:
        return fallback
    allowed = [n for n in policy.rung_names() if rank(n) <= rank(demand.cap)]
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
    return RUNGS[start].launches and rank(start) < rank(current.rung)


RELAUNCHED = " (relaunched: its executor died or it got stuck)"
"""How the reason of an attempt relaunched after its executor died, or after deskd stopped it
as stuck, says so (once per rung)."""
