"""Governing launches: the cap on agents running at once, and budgets (docs/operations.md
"Budgets and caps").

After the planner has chosen this tick's launches, ``gate`` lets them through in order —
urgent first, then oldest — while a slot is free and every budget the role falls under has
room; the rest are recorded as waiting (``queued: …`` or ``held by budget …``), which is not
a failure: such an attempt does not climb the ladder and pages nobody. Each tick offers the
waiting work again, so it launches by itself once a slot frees, a period turns or the desk
file raises a limit. Pure: the snapshot carries what was used and what runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from deskd.core.records import (
    LAUNCH_RUNGS,
    BudgetUse,
    Closure,
    Demand,
    NewAttempt,
    Note,
    PageAction,
    Policy,
    Snapshot,
)

QUEUED = "queued: "
HELD = "held by budget "
USAGE_LIMIT = "usage limit until "
WAITING = (QUEUED, HELD, USAGE_LIMIT)
"""How an attempt that waits (and neither climbs nor counts as failed) says so in ``skipped``."""


def waiting(skipped: str | None) -> bool:
    return skipped is not None and skipped.startswith(WAITING)


class Launchable(NamedTuple):
    """One role's launch this tick, as the gate weighs it."""

    role: str
    urgent: bool
    since: int
    host: str
    expected: Mapping[str, float]
    """Its expected use per unit (``tokens``, ``usd``)."""


class Gated(NamedTuple):
    """What the gate decided: why each role not let through waits, and the budgets holding."""

    waits: dict[str, str]
    holding: dict[str, BudgetUse]
    """Budgets that held a launch this tick, and the role first held by each."""
    first_held: dict[str, str]


def gate(
    launches: list[Launchable],
    *,
    budgets: tuple[BudgetUse, ...],
    running: Mapping[str, int],
    max_running: int,
    max_per_host: int,
) -> Gated:
    """Let ``launches`` through in priority order while slots and budgets allow."""
    per_host = dict(running)
    total = sum(per_host.values())
    spent = {b.name: b.used + b.running for b in budgets}
    out = Gated(waits={}, holding={}, first_held={})
    for x in sorted(launches, key=lambda x: (not x.urgent, x.since, x.role)):
        why = None
        if max_running and total >= max_running:
            why = f"{QUEUED}{total} of max_running {max_running} agents running"
        elif max_per_host and per_host.get(x.host, 0) >= max_per_host:
            why = f"{QUEUED}{per_host[x.host]} of max_running_per_host {max_per_host} on {x.host}"
        mine = [b for b in budgets if b.role in (None, x.role)]
        for b in mine if why is None else ():
            room = b.limit * (1 + (b.reserve if x.urgent else 0.0))
            if spent[b.name] >= room or spent[b.name] + x.expected.get(b.unit, 0.0) > room:
                why = f"{HELD}{b.name}: {b.text(spent[b.name])}; frees at {b.frees}"
                out.holding.setdefault(b.name, b)
                out.first_held.setdefault(b.name, x.role)
                break
        if why is not None:
            out.waits[x.role] = why
            continue
        total += 1
        per_host[x.host] = per_host.get(x.host, 0) + 1
        for b in mine:
            spent[b.name] += x.expected.get(b.unit, 0.0)
    return out


def budget_notice_key(b: BudgetUse) -> str:
    """A budget pages once per period: the notice's key names the budget and the period."""
    return f"budget:{b.name}:{b.period_start}"


class Governed(NamedTuple):
    attempts: list[NewAttempt]
    closures: list[Closure]
    notes: list[Note]
    pages: list[PageAction]
    settles: tuple[str, ...]


def govern(
    snapshot: Snapshot,
    policy: Policy,
    demanded: Mapping[str, Demand],
    attempts: list[NewAttempt],
    closures: list[Closure],
) -> Governed:
    """The plan's attempts with those the gate does not let through marked waiting; work
    that was already waiting for the same cause keeps its row (no new row per tick)."""
    groups: dict[str, list[int]] = {}
    for i, a in enumerate(attempts):
        if a.rung in LAUNCH_RUNGS and a.skipped is None:
            groups.setdefault(a.role, []).append(i)
    launches = []
    for name, indexes in groups.items():
        role = snapshot.role(name)
        ds = [demanded[attempts[i].key] for i in indexes]
        if role is not None:
            launches.append(
                Launchable(
                    role=name,
                    urgent=any(d.urgent for d in ds),
                    since=min(d.since for d in ds),
                    host=role.host,
                    expected={"tokens": role.expected_tokens, "usd": role.expected_usd},
                )
            )
    gated = gate(
        launches,
        budgets=snapshot.budgets,
        running=snapshot.running,
        max_running=policy.max_running,
        max_per_host=policy.max_running_per_host,
    )
    marked = list(attempts)
    for name, why in gated.waits.items():
        for i in groups[name]:
            marked[i] = marked[i]._replace(skipped=why, due_at=None)
    live = {a.id: a for a in snapshot.attempts}
    kept: dict[str, int] = {}
    out, notes = [], []
    for a in marked:
        old = live.get(a.supersedes) if a.supersedes is not None else None
        if waiting(a.skipped):
            a = a._replace(due_at=None)  # it does not climb: no SLA runs while it waits
            notes.append(Note(a.role, a.key, str(a.skipped)))
            if old is not None and old.rung == a.rung and _cause(old.skipped) == _cause(a.skipped):
                kept[a.key] = old.id
                continue
        out.append(a)
    pages = []
    for name, b in gated.holding.items():
        notice = budget_notice_key(b)
        if notice in snapshot.notice_keys:
            continue
        held = gated.first_held[name]
        key = next(a.key for a in marked if a.role == held and waiting(a.skipped))
        pages.append(
            PageAction(
                key=key,
                role=held,
                title=f"deskd: budget {name} is holding launches ({b.text(b.used + b.running)})",
                body=(
                    f"Budget {name}: {b.text(b.used + b.running)}; frees at {b.frees}.\n"
                    "Launches it does not allow wait, held, and start by themselves when the "
                    "period turns or the desk file raises the limit; `deskd budget` shows each "
                    "budget. This is paged once per budget per period."
                ),
                notice_key=notice,
                attempt_id=kept.get(key),
            )
        )
    settles = tuple(
        k
        for k in sorted(snapshot.notice_keys)
        if k.startswith("budget:") and k.split(":")[1] not in gated.holding
    )
    kept_ids = set(kept.values())
    return Governed(
        attempts=out,
        closures=[c for c in closures if c.attempt_id not in kept_ids],
        notes=notes,
        pages=pages,
        settles=settles,
    )


def _cause(skipped: str | None) -> str:
    """What an attempt waits for, without its figures (``held by budget desk/day``)."""
    return (skipped or "").split(":", 1)[0]
