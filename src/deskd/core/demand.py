"""The one demand generator: every reason to wake a role, derived from the snapshot.

Resolution asks this same generator (LESSONS 1): an attempt is resolved when its key is no
longer produced. There is no second "is it resolved?" predicate anywhere. Later issues add
their kinds (tasks, meetings, rollover, help) here, to the same function.
"""

from __future__ import annotations

from collections.abc import Iterable

from deskd.core.records import Demand, ItemView, Policy, Snapshot
from deskd.core.values import URGENT


def inbox_due_at(items: Iterable[ItemView], *, batch_s: int) -> int | None:
    """When a role's unread items start demanding a wake (None when they never will).

    Urgent items demand at once (their enqueue instant); otherwise the inbox waits until
    its oldest unread item is ``batch_s`` old, so a burst of normal items is one wake.
    The console's "wakes in 2 min" uses this same function (LESSONS 22).
    """
    live = [i for i in items if i.live]
    if not live:
        return None
    urgent = [i.enqueued_at for i in live if i.priority >= URGENT]
    if urgent:
        return min(urgent)
    return min(i.enqueued_at for i in live) + batch_s * 1000


def inbox_key(role: str) -> str:
    return f"inbox:{role}"


def demand(snapshot: Snapshot, *, now: int, policy: Policy) -> dict[str, Demand]:
    """Every key demanded at ``now``, keyed by demand key. Pure and deterministic."""
    found: dict[str, Demand] = {}
    for d in _inbox(snapshot, now=now, policy=policy):
        found[d.key] = d
    return found


def _inbox(snapshot: Snapshot, *, now: int, policy: Policy) -> list[Demand]:
    by_role: dict[str, list[ItemView]] = {}
    for item in snapshot.items:
        by_role.setdefault(item.role, []).append(item)
    out: list[Demand] = []
    for role in sorted(by_role):
        view = snapshot.role(role)
        if view is None or not view.enabled:
            continue
        items = sorted(
            (i for i in by_role[role] if i.live), key=lambda i: (-i.priority, i.enqueued_at, i.id)
        )
        due = inbox_due_at(items, batch_s=policy.inbox_batch_s)
        if due is None or due > now:
            continue
        out.append(
            Demand(
                key=inbox_key(role),
                kind="inbox",
                role=role,
                item_ids=tuple(i.id for i in items),
                titles=tuple(i.title for i in items),
                refs=tuple(i.ref for i in items if i.ref),
                urgent=any(i.priority >= URGENT for i in items),
                since=min(i.enqueued_at for i in items),
                sla_due_at=min(i.sla_due_at for i in items),
            )
        )
    return out
