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

from deskd.core.ladder import RUNGS
from deskd.core.records import (
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


class Governed(NamedTuple):
    attempts: list[NewAttempt]
    closures: list[Closure]
    notes: list[Note]
    pages: list[PageAction]
    settles: tuple[str, ...]
    """Budget notices to settle: their budget holds nothing this tick."""


def govern(
    snapshot: Snapshot,
    policy: Policy,
    demanded: Mapping[str, Demand],
    attempts: list[NewAttempt],
    closures: list[Closure],
) -> Governed:
    """The plan's attempts, those the gate does not let through marked waiting; work already
    waiting for the same cause keeps its row (no new row per tick)."""
    groups: dict[str, list[int]] = {}
    for i, a in enumerate(attempts):
        if RUNGS[a.rung].launches and a.skipped is None:
            groups.setdefault(a.role, []).append(i)
    waits, holding = _gate(snapshot, policy, demanded, attempts, groups)
    marked = [
        a._replace(skipped=waits[a.role]) if a.role in waits and i in groups[a.role] else a
        for i, a in enumerate(attempts)
    ]
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
    for b, held in holding.values():
        notice = f"budget:{b.name}:{b.period_start}"  # once per budget per period
        if notice in snapshot.notice_keys:
            continue
        key = next(a.key for a in marked if a.role == held and waiting(a.skipped))
        used = b.text(b.used + b.running)
        pages.append(
            PageAction(
                key=key,
                role=held,
                title=f"deskd: budget {b.name} is holding launches ({used})",
                body=f"Budget {b.name}: {used}; frees at {b.frees}.\nLaunches it does not allow "
                "wait, held, and start by themselves when the period turns or the desk file "
                "raises the limit; `deskd budget` shows each budget. Paged once per period.",
                notice_key=notice,
                attempt_id=kept.get(key),
            )
        )
    return Governed(
        attempts=out,
        closures=[c for c in closures if c.attempt_id not in kept.values()],
        notes=notes,
        pages=pages,
        settles=tuple(
            k
            for k in sorted(snapshot.notice_keys)
            if k.startswith("budget:") and k.split(":")[1] not in holding
        ),
    )


def _gate(
    snapshot: Snapshot,
    policy: Policy,
    demanded: Mapping[str, Demand],
    attempts: list[NewAttempt],
    groups: dict[str, list[int]],
) -> tuple[dict[str, str], dict[str, tuple[BudgetUse, str]]]:
    """Let each role's launch through in order, urgent first, then oldest, while a slot is
    free and its budgets have room; returns why each other role waits, and each budget that
    held one (with the first role it held)."""
    per_host = dict(snapshot.running)
    total = sum(per_host.values())
    spent = {b.name: b.used + b.running for b in snapshot.budgets}
    waits: dict[str, str] = {}
    holding: dict[str, tuple[BudgetUse, str]] = {}
    cap, host_cap = policy.max_running, policy.max_running_per_host

    def order(name: str) -> tuple[bool, int, str]:
        ds = [demanded[attempts[i].key] for i in groups[name]]
        return (not any(d.urgent for d in ds), min(d.since for d in ds), name)

    for name in sorted(groups, key=order):
        role = snapshot.role(name)
        if role is None:
            continue
        urgent = not order(name)[0]
        expected = {"tokens": role.expected_tokens, "usd": role.expected_usd}
        why = None
        if cap and total >= cap:
            why = f"{QUEUED}{total} of max_running {cap} agents running"
        elif host_cap and per_host.get(role.host, 0) >= host_cap:
            why = f"{QUEUED}{per_host[role.host]} of max_running_per_host {host_cap} on {role.host}"
        mine = [b for b in snapshot.budgets if b.role in (None, name)]
        for b in mine if why is None else ():
            room = b.limit * (1 + (b.reserve if urgent else 0.0))
            if spent[b.name] >= room or spent[b.name] + expected[b.unit] > room:
                why = f"{HELD}{b.name}: {b.text(spent[b.name])}; frees at {b.frees}"
                holding.setdefault(b.name, (b, name))
                break
        if why is not None:
            waits[name] = why
            continue
        total += 1
        per_host[role.host] = per_host.get(role.host, 0) + 1
        for b in mine:
            spent[b.name] += expected[b.unit]
    return waits, holding


def _cause(skipped: str | None) -> str:
    """What an attempt waits for, without its figures (``held by budget desk/day``)."""
    return (skipped or "").split(":", 1)[0]
