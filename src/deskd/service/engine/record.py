"""Write a plan in the caller's transaction: closures by compare-and-set, new attempts, their
launches planned and their pages queued, and one ``tick.recorded`` event.

The tick records its whole plan here; a help request (help.py) and the rollover by hand
(rollover.py) record the part of one that is theirs, without loading the tick.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deskd.core.values import priority_rank
from deskd.service.engine.prompting import launch_prompt
from deskd.store import attempts as attempt_rows
from deskd.store.events import add_event
from deskd.store.pages import insert_page, resolve_pages_for_key

if TYPE_CHECKING:
    from deskd.core.records import Plan
    from deskd.store.dialect import Connection


def record_plan(conn: Connection, plan: Plan, *, now: int) -> tuple[dict[str, int], list[int]]:
    """Write a plan: closures by compare-and-set, new attempts, launches planned, pages queued."""
    for c in plan.closures:
        row = attempt_rows.get_attempt(conn, c.attempt_id)
        if not attempt_rows.close_attempt(
            conn, c.attempt_id, outcome=c.outcome, reason=c.reason, now=now
        ):
            continue
        attempt_rows.skip_planned_launch(
            conn, c.attempt_id, reason=f"not launched: attempt {c.outcome}", now=now
        )
        if row is not None and c.outcome != "superseded":
            resolve_pages_for_key(conn, row.key, now=now)
    for key in plan.settles:  # a budget stopped holding: its notice is settled
        resolve_pages_for_key(conn, key, now=now)
    ids: dict[str, int] = {}
    for a in plan.attempts:
        # A planned attempt is written field for field (store names them alike), at ``now``.
        ids[a.key] = attempt_rows.insert_attempt(conn, attempted_at=now, **a._asdict())
    for launch in plan.launches:
        from secrets import token_urlsafe  # hashlib, random: for recorded launches only

        primary = ids[launch.keys[0]]
        attempt_rows.plan_launch(
            conn,
            primary,
            token=token_urlsafe(18),
            prompt=launch_prompt(
                conn, role=launch.role, reasons=launch.reasons, default=launch.prompt, now=now
            ),
            session_id=launch.session_id,
            now=now,
        )
        for key in launch.keys[1:]:
            attempt_rows.ride_along(conn, ids[key], primary_id=primary, now=now)
    page_ids = []
    # A page is as urgent as its demand: silences and quiet hours hold only non-urgent pages.
    urgent_keys = {d.key for d in plan.demands if d.urgent}
    for page in plan.pages:
        kind = "notice" if page.notice_key else ("follow_up" if page.follow_up else "page")
        urgent = page.follow_up or (kind == "page" and page.key in urgent_keys)
        page_ids.append(
            insert_page(
                conn,
                attempt_id=page.attempt_id if page.attempt_id is not None else ids[page.key],
                key=page.notice_key or page.key,
                role=page.role,
                kind=kind,
                priority=priority_rank("urgent") if urgent else priority_rank("high"),
                title=page.title,
                body=page.body,
                now=now,
            )
        )
    if not plan.empty:
        add_event(
            conn,
            at=now,
            kind="tick.recorded",
            detail={
                "closures": len(plan.closures),
                "attempts": len(plan.attempts),
                "launches": len(plan.launches),
                "pages": len(plan.pages),
            },
        )
    return ids, page_ids
