"""Write a plan in the caller's transaction: closures by compare-and-set, new attempts, their
launches planned and their pages queued, and one ``tick.recorded`` event.

The tick records its whole plan here; a help request (questions.py) and the rollover by hand
(rollover.py) record the part of one that is theirs, without loading the tick.

Each launch's prompt passes through the host's ``prompt_builder`` (``deskd.config.configure``)
when it is recorded: the prompt deskd built is the default the builder may keep, extend or
replace. A builder that raises or returns nothing usable must not cost the wake: the launch
keeps deskd's prompt and an event says why.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from deskd.core.prompts import PROMPT_CAP_BYTES
from deskd.core.values import priority_rank
from deskd.store import attempts as attempt_rows
from deskd.store.events import add_event
from deskd.store.pages import insert_page, resolve_pages_for_key

if TYPE_CHECKING:
    from deskd.core.records import Plan
    from deskd.store.dialect import Connection


def record_plan(conn: Connection, plan: Plan, *, now: int) -> tuple[dict[str, int], list[int]]:
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
        counts = {
            part: len(getattr(plan, part)) for part in ("closures", "attempts", "launches", "pages")
        }
        add_event(conn, at=now, kind="tick.recorded", detail=counts)
    return ids, page_ids


def launch_prompt(
    conn: Connection, *, role: str, reasons: Sequence[str], default: str, now: int
) -> str:
    """The prompt to record for a launch of ``role``: the host builder's, else ``default``
    (and an event saying why the builder's was not used)."""
    built, failed = build_prompt(role=role, reasons=reasons, default=default)
    if failed is not None:
        detail = {"error": " ".join(failed.split())[:500], "used": "deskd's prompt"}
        add_event(conn, at=now, kind="prompt_builder.failed", role=role, detail=detail)
    return built


def previewed(plan: Plan) -> Plan:
    """The plan with each launch's prompt as an executing tick would record it: a dry run
    shows what would be launched, the host builder's prompt included. It writes nothing (a
    failing builder's event is an executing tick's)."""
    if not plan.launches:
        return plan
    launches = tuple(
        x._replace(prompt=build_prompt(role=x.role, reasons=x.reasons, default=x.prompt)[0])
        for x in plan.launches
    )
    return plan._replace(launches=launches)


def build_prompt(*, role: str, reasons: Sequence[str], default: str) -> tuple[str, str | None]:
    """(the prompt for a launch of ``role``, why the host builder's could not be used or None)."""
    # A builder exists only if DESKD_CONFIG_MODULE was loaded, through deskd.config.host; a
    # tick without one need not import it.
    config = sys.modules.get("deskd.config.host")
    builder = config.host_config().prompt_builder if config is not None else None
    if builder is None:
        return default, None
    try:
        built = builder(role, tuple(reasons), default)
    except Exception as exc:
        return default, f"{type(exc).__name__}: {exc}"
    if not isinstance(built, str) or not built.strip():
        return default, "it returned no prompt"
    encoded = built.encode("utf-8")
    if len(encoded) > PROMPT_CAP_BYTES:  # argv limits hold for the host's prompt too
        built = encoded[:PROMPT_CAP_BYTES].decode("utf-8", errors="ignore")
    return built, None
