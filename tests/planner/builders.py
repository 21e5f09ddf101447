"""Builders for planner tests: a snapshot in, a plan out, and a tiny in-memory ledger."""

from __future__ import annotations

from dataclasses import dataclass, field

from deskd.core.ladder import DEFAULT_LADDER
from deskd.core.planner import plan
from deskd.core.records import Attempt, ItemView, Plan, Policy, RoleView, Rung, Snapshot
from deskd.core.values import priority_rank

T0 = 1_796_140_800_000  # 2026-12-01T14:00:00Z
MIN = 60_000

POLICY = Policy(ladder=tuple(Rung(name=n, sla_s=s) for n, s in DEFAULT_LADDER))


def role(name: str = "alpha", **kw: object) -> RoleView:
    return RoleView(name=name, **kw)  # type: ignore[arg-type]


def item(
    id: int,
    role: str = "alpha",
    *,
    priority: str = "normal",
    at: int = T0,
    sla_min: int = 30,
    **kw: object,
) -> ItemView:
    return ItemView(
        id=id,
        role=role,
        priority=priority_rank(priority),
        source="alert",
        title=f"item {id}",
        enqueued_at=at,
        sla_due_at=at + sla_min * MIN,
        **kw,  # type: ignore[arg-type]
    )


def attempt(
    key: str = "inbox:alpha",
    *,
    id: int = 1,
    role: str = "alpha",
    rung: str = "session",
    at: int = T0,
    **kw: object,
) -> Attempt:
    """A live attempt; its kind is the key's first part (``inbox:alpha`` → ``inbox``)."""
    kind = str(kw.pop("kind", key.split(":", 1)[0]))
    return Attempt(id=id, key=key, kind=kind, role=role, rung=rung, attempted_at=at, **kw)  # type: ignore[arg-type]


@dataclass
class Ledger:
    """Applies plans the way the tick records them, so tests can walk a desk through time."""

    roles: dict[str, RoleView]
    items: dict[int, ItemView] = field(default_factory=dict)
    live: dict[str, Attempt] = field(default_factory=dict)
    history: list[Attempt] = field(default_factory=list)
    open_pages: set[str] = field(default_factory=set)
    pages: list[str] = field(default_factory=list)
    next_id: int = 1
    policy: Policy = POLICY
    desk_paused: bool = False

    def snapshot(self) -> Snapshot:
        return Snapshot(
            roles=tuple(self.roles[n] for n in sorted(self.roles)),
            items=tuple(self.items[i] for i in sorted(self.items)),
            attempts=tuple(self.live[k] for k in sorted(self.live)),
            open_page_keys=frozenset(self.open_pages),
            desk_paused=self.desk_paused,
        )

    def tick(self, now: int) -> Plan:
        p = plan(self.snapshot(), now=now, policy=self.policy)
        by_id = {a.id: a for a in self.live.values()}
        for c in p.closures:
            closed = by_id[c.attempt_id]
            del self.live[closed.key]
            if c.outcome in ("resolved", "withdrawn"):
                self.open_pages.discard(closed.key)
        for a in p.attempts:
            assert a.key not in self.live, f"two live attempts for {a.key}"
            view = Attempt(
                id=self.next_id,
                key=a.key,
                kind=a.kind,
                role=a.role,
                rung=a.rung,
                generation=a.generation,
                attempted_at=now,
                due_at=a.due_at,
                recycles=a.recycles,
                item_ids=a.item_ids,
                launch_status="skipped" if a.skipped else None,
            )
            self.next_id += 1
            self.live[a.key] = view
            self.history.append(view)
        for launch in p.launches:
            for key in launch.keys:
                self.live[key] = self.live[key]._replace(launch_status="planned")
        for page in p.pages:
            if not page.follow_up:
                self.open_pages.add(page.key)
            self.pages.append(page.key)
        return p

    def finish_launches(self, *, landed: bool, failure: str | None = None, at: int) -> None:
        for key, a in list(self.live.items()):
            if a.launch_status in ("planned", "running"):
                self.live[key] = a._replace(
                    launch_status="failed" if failure else "finished",
                    failure_class=failure,
                    landed_at=at if landed else None,
                    finished_at=at,
                )

    def read(self, *ids: int) -> None:
        for i in ids:
            self.items.pop(i, None)
