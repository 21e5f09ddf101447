"""``plan(snapshot, now=, policy=)``: the pure heart of the tick.

Given committed rows (a ``Snapshot``) and an instant, decide which attempts close, which
are inserted (start, climb, recycle), which launches run and which pages go out. It cannot
touch SQLite or the clock; the same inputs always give the same plan. The rules are
docs/architecture.md "The ladder".

Over 400 lines because these rules read against each other (one ``_step`` decides, in
order, which applies); the ladder's own arithmetic lives in core/ladder.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from deskd.core.demand import closure_for, inbox_due_at
from deskd.core.demand import demand as generate_demand
from deskd.core.govern import HELD, QUEUED, USAGE_LIMIT, govern, waiting
from deskd.core.ladder import (
    IN_FLIGHT,
    RELAUNCHED,
    RUNGS,
    is_terminal,
    next_rung,
    rank,
    reaches,
    recycle_after_s,
    role_busy,
    start_rung,
    went_dead,
)
from deskd.core.prompts import page_text, wake_prompt, why_not_landed
from deskd.core.records import (
    EXECUTOR_DIED,
    HOST_DOWN,
    STUCK,
    Attempt,
    Closure,
    Demand,
    ItemView,
    LaunchAction,
    NewAttempt,
    Note,
    PageAction,
    Plan,
    Policy,
    RoleView,
    Snapshot,
)
from deskd.core.timeparse import iso_utc
from deskd.core.values import URGENT
from deskd.quoting import plural

if TYPE_CHECKING:
    Step = Closure | NewAttempt | PageAction | Note


def plan(snapshot: Snapshot, *, now: int, policy: Policy) -> Plan:
    demanded = generate_demand(snapshot, now=now, policy=policy)
    items = {i.id: i for i in snapshot.items}
    # A key now demanded for another role (a reassigned urgent task) is not the old
    # assignee's wake any more: that attempt closes and the new assignee starts afresh
    # (lesson 4).
    moved = {
        a.key for a in snapshot.attempts if a.key in demanded and demanded[a.key].role != a.role
    }
    live = {a.key: a for a in snapshot.attempts if a.key not in moved}
    broken = dict(snapshot.broken)
    notes = [
        Note(name, None, f"error: {why}; skipped this tick") for name, why in sorted(broken.items())
    ]
    closures = [
        closure_for(snapshot, a)
        for a in sorted(snapshot.attempts, key=lambda a: a.key)
        if (a.key not in demanded or a.key in moved) and a.role not in broken
    ]
    attempts: list[NewAttempt] = []
    pages: list[PageAction] = []
    steps: dict[type, list[Any]] = {
        NewAttempt: attempts,
        Closure: closures,
        PageAction: pages,
        Note: notes,
    }
    for key in sorted(demanded):
        d = demanded[key]
        role = snapshot.role(d.role)
        if role is None or d.role in broken:
            continue
        for step in _step(_Climb(snapshot, policy, role, d, items, now), live.get(key)):
            steps[type(step)].append(step)

    governed = govern(snapshot, policy, demanded, attempts, closures)
    attempts, closures = governed.attempts, governed.closures
    launches = _launches(snapshot, policy, demanded, attempts, items)
    pages.extend(governed.pages)
    pages.extend(_notices(snapshot, policy, attempts, now=now))
    return Plan(
        now=now,
        demands=tuple(demanded[k] for k in sorted(demanded)),
        closures=tuple(closures),
        attempts=tuple(attempts),
        launches=tuple(launches),
        pages=tuple(pages),
        notes=tuple(notes + governed.notes),
        settles=governed.settles,
    )


PAUSED_PREFIX = "paused: "
"""How an attempt recorded while its role (or the desk) was paused says so (``skipped``)."""


class _Climb(NamedTuple):
    """One demand's climb this tick: what each of its steps reads."""

    snapshot: Snapshot
    policy: Policy
    role: RoleView
    d: Demand
    items: dict[int, ItemView]
    now: int

    def new(
        self, rung: str, *, generation: int, supersedes: int | None = None, recycles: int = 0
    ) -> NewAttempt:
        """An attempt at ``rung`` for the demand, its SLA running from now."""
        d, sla = self.d, self.policy.sla_of(rung)
        return NewAttempt(
            key=d.key,
            kind=d.kind,
            role=self.role.name,
            rung=rung,
            level=self.policy.level_of(rung),
            generation=generation,
            due_at=None if sla is None else self.now + sla * 1000,
            item_ids=d.item_ids,
            task_ids=d.task_ids,
            reason=_reason_text(d),
            ref=d.ref or (d.refs[0] if d.refs else None),
            supersedes=supersedes,
            recycles=recycles,
            skipped=_cannot_act(self.policy, self.role, rung, now=self.now),
        )

    def start(
        self, *, generation: int, recycles: int = 0, supersedes: int | None = None
    ) -> Iterator[Step]:
        rung = start_rung(self.policy, self.role, self.d)
        yield self.new(rung, generation=generation, supersedes=supersedes, recycles=recycles)
        yield from self.page_if_due(rung, None)

    def again(
        self, live: Attempt, why: str, *, generation: int, recycles: int = 0
    ) -> Iterator[Step]:
        """Supersede the live attempt and start the climb again at the start rung."""
        yield _supersede(live, why)
        yield from self.start(generation=generation, recycles=recycles, supersedes=live.id)

    def take_over(self, live: Attempt, rung: str, why: str) -> tuple[Closure, NewAttempt]:
        """Supersede the live attempt; its successor at ``rung`` continues the same climb."""
        successor = self.new(
            rung, generation=live.generation, supersedes=live.id, recycles=live.recycles
        )
        return _supersede(live, why), successor

    def note(self, text: str) -> Note:
        return Note(self.role.name, self.d.key, text)

    def page_if_due(
        self, rung: str, failed_rung: str | None, *, why: str | None = None
    ) -> Iterator[PageAction]:
        """The page when the climb reaches a paging rung (none while the key's page is open)."""
        if RUNGS[rung].pages and self.d.key not in self.snapshot.open_page_keys:
            yield self.page(failed_rung, why)

    def page(self, failed_rung: str | None, why: str | None = None) -> PageAction:
        role, d = self.role.name, self.d
        title, body = page_text(
            role=role, demand=d, items=self.items, failed_rung=failed_rung, failed_why=why
        )
        return PageAction(key=d.key, role=role, title=title, body=body)


def _step(c: _Climb, current: Attempt | None) -> Iterator[Step]:
    role, d, now = c.role, c.d, c.now
    paused = c.snapshot.desk_paused or role.paused
    if paused:
        # The demand is still recorded (the ledger shows what waits), nothing climbs,
        # launches or pages until resume.
        why = f"paused: {role.pause_reason or 'desk paused'}"
        if current is None:
            new = c.new(start_rung(c.policy, role, d), generation=d.generation)
            yield new._replace(skipped=why, due_at=None)
        yield c.note(why)
        return
    if current is not None and (current.skipped or "").startswith(PAUSED_PREFIX):
        # Resumed: what was recorded while paused starts its climb now, at the bottom.
        yield from c.again(current, "resumed", generation=d.generation)
        return
    if current is not None and waiting(current.skipped):
        # Queued, held by a budget or a usage limit: offered again each tick at its own rung
        # (a climb keeps its place), from the bottom once the role is busy; the gate
        # (core/govern.py) keeps its row while it still waits. It never climbs.
        if role_busy(role) or not reaches(current.rung, role):
            yield from c.again(current, "waited", generation=d.generation)
        else:
            yield from c.take_over(current, current.rung, "waited")
        return
    if current is None:
        yield from c.start(generation=d.generation)
        return
    if d.generation > current.generation:
        # A re-armed request (a new vote, a new proposal) restarts at the bottom (lesson 14).
        yield from c.again(current, "re-armed", generation=d.generation)
        return
    if current.ack_until is not None and now < current.ack_until and _same_work(current, d):
        yield c.note("acknowledged by a person")
        return
    if went_dead(c.policy, role, d, current):
        # It was busy when this rung was chosen (a launch rung skipped as "role busy"); its
        # heartbeat has since gone stale: the machine rungs can act now, not after a recycle.
        yield from c.again(
            current,
            "presence went dead: rung re-evaluated",
            generation=current.generation + 1,
            recycles=current.recycles,
        )
        return
    if relaunch_due(role, current):
        # Its executor was killed (kill -9, OOM) and the healing tick parked the session: not
        # silence from the agent, so the rung is tried again now — once — resuming the
        # session the dead launch started; a second death climbs as a failure does.
        cause = STUCK if (current.launch_detail or "").startswith(STUCK) else EXECUTOR_DIED
        closure, new = c.take_over(current, current.rung, f"{cause}: relaunched")
        yield closure
        yield new._replace(reason=new.reason + RELAUNCHED)
        return
    if not RUNGS[current.rung].machine and _new_urgent(current, d, c.items):
        # A new urgent item while a person is already paged: retry the machine rungs at
        # once, and tell the open page — never a second page for the key (lesson 16).
        yield from c.again(current, "new urgent item", generation=current.generation + 1)
        page = c.page(None)
        yield page._replace(title="follow-up: " + page.title, follow_up=True)
        return
    if is_terminal(c.policy, current.rung):
        wait_s = recycle_after_s(c.policy, current.recycles)
        if now >= current.attempted_at + wait_s * 1000:
            yield from c.again(
                current,
                "recycled",
                generation=current.generation + 1,
                recycles=current.recycles + 1,
            )
        else:
            yield c.note(f"badge: retried after {wait_s // 60} min")
        return
    unshown = _not_shown(c, current)
    if unshown:
        # A landing holds only what the agent was shown: demand it never saw gets its own
        # wake at the role's start rung (resuming the parked session), not the old SLA. It is
        # a new climb, so a new generation: within one the rung never goes down.
        yield from c.again(
            current,
            f"not shown to the landed wake: {unshown}",
            generation=current.generation + 1,
            recycles=current.recycles,
        )
        return
    hold = _hold_reason(c, current)
    if hold is not None:
        yield c.note(hold)
        return
    rung = next_rung(c.policy, current.rung, role, d)
    if current.failure_class == HOST_DOWN:
        yield c.note(f"{current.rung}: the launch was given up: {current.launch_detail}")
    yield from c.take_over(current, rung, f"{current.rung} did not land")
    yield from c.page_if_due(rung, current.rung, why=why_not_landed(current))


def relaunch_due(role: RoleView, current: Attempt) -> bool:
    """``current``'s launch died with its executor, the role is not busy (the healing tick
    parked its session), and it is not itself a relaunch: one relaunch per rung, no loop."""
    died = current.launch_status == "failed" and (current.launch_detail or "").startswith(
        (EXECUTOR_DIED, STUCK)
    )  # "executor died", "executor died; the disk holding … is full", "stuck: …"
    return died and not role_busy(role) and RELAUNCHED not in current.reason


def _hold_reason(c: _Climb, current: Attempt) -> str | None:
    """Why the live attempt does not climb this tick, or None when it climbs now.

    The ladder climbs for silence, not for an agent that is visibly working: while the
    role's launch runs, after landing, or while a busy role has been shown the items by its
    session hook, only the items' own SLA (not the rung's) lets it climb.
    """
    role, d, now = c.role, c.d, c.now
    if current.launch_status == "failed" and current.failure_class == "permanent":
        return None
    if current.failure_class == HOST_DOWN:  # given up: nothing runs until the rung climbs
        return None
    if current.launch_status in IN_FLIGHT or role.launch_running:
        return "waiting: the launch is running"
    if _parked(role, current, now=now):
        # Not silence: the agent cannot answer until the reset, which a person is told once.
        return f"usage limit: parked until {iso_utc(role.held_until)}"
    items_breached = d.sla_due_at is not None and now >= d.sla_due_at
    if current.landed_at is not None:
        return None if items_breached else "landed: waiting for the items' own SLA"
    surfaced = bool(d.item_ids) and all(
        c.items[i].notified_at is not None for i in d.item_ids if i in c.items
    )
    if RUNGS[current.rung].in_session and role_busy(role) and surfaced and not items_breached:
        return "working: its session hook showed the items; waiting for their SLA"
    if current.due_at is not None and now < current.due_at:
        return f"{current.rung}: SLA until {iso_utc(current.due_at)}"
    return None


def _not_shown(c: _Climb, current: Attempt) -> str | None:
    """What a landed wake's demand now holds that its prompt did not list (nor the session
    hook show), once its own batch rule makes it due; None when there is nothing such."""
    if current.landed_at is None:
        return None
    listed, items = set(current.item_ids), c.items
    new_items = [
        items[i]
        for i in c.d.item_ids
        if i not in listed and i in items and items[i].notified_at is None
    ]
    due = inbox_due_at(new_items, batch_s=c.policy.inbox_batch_s)
    shown_tasks = set(current.task_ids)
    new_tasks = [t for t in c.d.task_ids if t not in shown_tasks]
    parts = []
    if due is not None and due <= c.now:
        parts.append(plural(len(new_items), "new item"))
    if new_tasks:
        parts.append(plural(len(new_tasks), "new task"))
    return ", ".join(parts) or None


def _cannot_act(policy: Policy, role: RoleView, rung: str, *, now: int) -> str | None:
    """Why a launch rung cannot launch for this role now (deskd never starts a second session)."""
    if not RUNGS[rung].launches:
        return None
    if role_busy(role):
        return "role busy"
    if role.held_until is not None and now < role.held_until:
        return f"{USAGE_LIMIT}{iso_utc(role.held_until)}"
    cap = policy.max_launches_per_day
    if cap and role.launches_today >= cap:
        return f"daily launch cap reached ({cap})"
    if policy.max_cost_per_day and role.cost_today >= policy.max_cost_per_day:
        return f"daily cost cap reached (${policy.max_cost_per_day:.2f})"
    return None


def _reason_text(d: Demand) -> str:
    if d.kind == "inbox":
        return plural(len(d.item_ids), "unread item") + (" (urgent)" if d.urgent else "")
    return d.kind


def _supersede(current: Attempt, why: str) -> Closure:
    return Closure(attempt_id=current.id, outcome="superseded", reason=why)


def _same_work(current: Attempt, d: Demand) -> bool:
    """An ack holds until the demand changes: new items it did not cover end it."""
    return set(d.item_ids) <= set(current.item_ids)


def _new_urgent(current: Attempt, d: Demand, items: dict[int, ItemView]) -> bool:
    covered = set(current.item_ids)
    return any(i not in covered and i in items and items[i].priority >= URGENT for i in d.item_ids)


def _launches(
    snapshot: Snapshot,
    policy: Policy,
    demanded: dict[str, Demand],
    attempts: list[NewAttempt],
    items: dict[int, ItemView],
) -> list[LaunchAction]:
    """Merge each role's launch-rung attempts of this tick into one launch."""
    by_role: dict[str, list[NewAttempt]] = {}
    for a in attempts:
        if RUNGS[a.rung].launches and a.skipped is None:
            by_role.setdefault(a.role, []).append(a)
    launches: list[LaunchAction] = []
    for name in sorted(by_role):
        role = snapshot.role(name)
        if role is None:
            continue
        group = sorted(by_role[name], key=lambda a: (-rank(a.rung), a.key))
        rung = group[0].rung
        ds = [demanded[a.key] for a in group]
        prompt = wake_prompt(
            role=name,
            role_prompt=role.prompt,
            demands=ds,
            items=items,
            cap_bytes=policy.prompt_cap_bytes,
        )
        launches.append(
            LaunchAction(
                role=name,
                rung=rung,
                keys=tuple(a.key for a in group),
                # A relaunch resumes the session its dead launch started, at any rung.
                session_id=role.session_id
                if RUNGS[rung].resumes or RELAUNCHED in group[0].reason
                else None,
                reasons=tuple(a.reason for a in group),
                prompt=prompt,
                item_ids=tuple(i for a in group for i in a.item_ids),
            )
        )
    return launches


def _parked(role: RoleView, current: Attempt, *, now: int) -> bool:
    """The live attempt's launch hit a usage limit whose reset has not come."""
    held = role.held_until is not None and now < role.held_until
    return held and current.failure_class == "usage_limit"


def _notices(
    snapshot: Snapshot, policy: Policy, attempts: list[NewAttempt], *, now: int
) -> list[PageAction]:
    """Page once when a usage limit or a daily cap parks a role's launches (never per tick)."""
    out: list[PageAction] = []
    seen: set[str] = set()
    waiting: list[tuple[str, str, str, str, int | None]] = [
        (a.role, a.key, a.reason, a.skipped or "", None) for a in attempts
    ]
    for live in snapshot.attempts:
        role = snapshot.role(live.role)
        if role is not None and _parked(role, live, now=now):
            why = f"usage limit until {iso_utc(role.held_until)}"
            waiting.append((live.role, live.key, live.kind, why, live.id))
    for name, key, reason, skipped, attempt_id in waiting:
        role = snapshot.role(name)
        if role is None or not skipped or skipped == "role busy":
            continue
        if skipped.startswith((PAUSED_PREFIX, QUEUED, HELD)):
            continue  # a pause or a queue pages no one; a budget pages once (core/govern.py)
        if role.held_until is not None and now < role.held_until:
            # One notice per account: every role on it waits for the same reset.
            who = f"account {role.account}" if role.account else role.name
            notice = f"usage_limit:{role.account or role.name}:{role.held_until}"
            title = f"deskd: {who} paused by a usage limit until {iso_utc(role.held_until)}"
        else:
            notice = f"cap:{role.name}:{snapshot.day_start}"
            title = f"deskd: {role.name} parked: {skipped}"
        if notice in snapshot.notice_keys or notice in seen:
            continue
        seen.add(notice)
        body = (
            f"Role: {role.name}\nLaunches are held: {skipped}.\n"
            f"Waiting: {reason} ({key}). Nothing more will launch for it until then; "
            "`deskd wake explain --role " + role.name + "` shows the state."
        )
        out.append(
            PageAction(
                key=key,
                role=role.name,
                title=title,
                body=body,
                notice_key=notice,
                attempt_id=attempt_id,
            )
        )
    return out
