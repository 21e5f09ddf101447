"""Read-only views the supervisor console shows and no CLI command needs: a role's ladder
over time (for the timeline picture), a meeting's whole transcript with debts and votes, the
event log, and a change counter for live refresh. Reads only (LESSONS 43)."""

from __future__ import annotations

import json
from typing import Any

from deskd.config.settings import Settings
from deskd.core.meetings import votes_owed
from deskd.core.timeparse import iso_utc
from deskd.errors import StoreError
from deskd.service.desk.context import DeskContext
from deskd.service.meetings.facts import facts_of
from deskd.service.meetings.views import status_view
from deskd.store import console as console_rows
from deskd.store.records import JSON, shown

TIMELINE_WINDOW_MS = 24 * 3600 * 1000
EVENTS_SHOWN = 100


def ladder_history(ctx: DeskContext, role: str, *, window_ms: int = TIMELINE_WINDOW_MS) -> JSON:
    """A role's ladder over time, for the timeline picture (web/render.py): its attempts and
    pages of the last ``window_ms`` (and every live one), in Unix ms, each attempt with its
    span on its rung and its launch, landing and resolution."""
    ctx.desk.role(role)
    since = ctx.now - window_ms
    attempts: list[dict[str, Any]] = []
    for r in console_rows.attempts_since(ctx.conn, role, since=since):
        end = r.resolved_at if r.resolved_at is not None else ctx.now
        attempts.append(
            {
                **shown(r, "id key"),
                "reason": r.kind,
                **shown(r, "rung level outcome"),
                "start": int(r.attempted_at),
                "end": int(end),
                "launched": r.launched_at,
                "landed": r.landed_at,
                "resolved": r.resolved_at if r.outcome == "resolved" else None,
                **shown(r, "launch_status failure_class skipped"),
                "acked": r.ack_until is not None and int(r.ack_until) > ctx.now,
                "label": f"#{r.id} {r.key} on {r.rung}: {r.outcome}"
                + (f", launch {r.launch_status}" if r.launch_status else "")
                + (f", {r.failure_class} failure" if r.failure_class else ""),
            }
        )
    pages: list[dict[str, Any]] = [
        {
            **shown(p, "id attempt_id"),
            "at": int(p.created_at),
            **shown(p, "status kind"),
            "label": f"page {p.id} ({p.kind}, {p.status}): {p.title}",
        }
        for p in console_rows.pages_of_role(ctx.conn, role, since=since)
    ]
    starts = [int(a["start"]) for a in attempts] + [int(p["at"]) for p in pages]
    # Fit the picture to what happened (a little margin either side), within the window.
    first = min(starts) if starts else since
    margin = max((ctx.now - first) // 20, 60_000)
    return {
        "role": role,
        "from": max(since, first - margin),
        "to": ctx.now,
        "attempts": attempts,
        "pages": pages,
    }


def meeting_detail(ctx: DeskContext, meeting_id: int) -> JSON:
    """The console's meeting page: `meeting status` plus the transcript, every reply
    obligation (open or closed) and the votes owed."""
    facts = facts_of(ctx.conn, meeting_id)
    status = status_view(facts, now=ctx.now)
    transcript = [
        {
            "id": int(m["id"]),
            **_columns(m, "sender kind body reply_to"),
            "spent": bool(m["spent"]),
            "at": iso_utc(m["sent_at"]),
        }
        for m in console_rows.meeting_rows(ctx.conn, "meeting_messages", meeting_id)
    ]
    obligations = [
        {
            "message_id": int(o["message_id"]),
            **_columns(o, "debtor creditor status"),
            "due_at": int(o["due_at"]),
            "overdue": o["status"] == "open" and int(o["due_at"]) <= ctx.now,
            "close_reason": o["close_reason"],
        }
        for o in console_rows.meeting_rows(ctx.conn, "meeting_obligations", meeting_id)
    ]
    return {
        **status,
        "transcript": transcript,
        "obligations": obligations,
        "votes_owed": list(votes_owed(facts)),
    }


def recent_events(
    ctx: DeskContext,
    *,
    role: str | None = None,
    actor: str | None = None,
    limit: int = EVENTS_SHOWN,
) -> list[dict[str, Any]]:
    """The newest events, each with its detail decoded."""
    out = []
    for r in console_rows.recent_events(ctx.conn, role=role, actor=actor, limit=limit):
        try:
            detail = json.loads(r["detail"] or "{}")
        except ValueError:
            detail = {}
        at = iso_utc(r["at"])
        columns = _columns(r, "kind role actor auth subject")
        out.append({"id": int(r["id"]), "at": at, **columns, "detail": detail})
    return out


def _columns(row: Any, names: str) -> JSON:
    """The columns ``names`` (space-separated) of ``row``, in that order."""
    return {name: row[name] for name in names.split()}


def change_mark(settings: Settings) -> tuple[int, ...]:
    """Changes whenever the desk does: the database (a SQLite file and its WAL, which every
    commit touches; on PostgreSQL the desk's notifications, read from memory: store/pg_listen)
    and the tick log (a dry-run tick writes only there). The console's cue to refresh."""
    mark: list[int] = []
    files = [settings.log_path / "tick.log"]
    if settings.shared_database:
        from deskd.store.pg_listen import changes

        try:
            mark.append(changes(settings.database))
        except StoreError:
            mark.append(0)  # the server is away: the page shows it on the next refresh
    else:
        db = settings.db_path
        files = [db, db.with_name(db.name + "-wal"), *files]
    for path in files:
        try:
            info = path.stat()
        except OSError:
            mark += [0, 0]
            continue
        mark += [info.st_mtime_ns, info.st_size]
    return tuple(mark)
