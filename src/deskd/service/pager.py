"""The pager: send queued pages through channels after the tick commits, record each result.

A page row is written ``queued`` by the tick (the ledger first), then this module, outside
any write transaction, claims it by compare-and-set, sends it through apprise (each send
bounded by ``SEND_BUDGET_S``), and records one result per channel URL. It is a list of
bounded steps: ``settle_resolved`` then ``send_one_page`` per due page, under a per-run
budget; a crash between steps leaves rows the next run picks up.

Rules (ARCHITECTURE.md "Pages and channels", LESSONS 12-13):
- routing: the role's channels, else the desk's ``default_channels``, plus
  ``DESKD_NOTIFY_URLS``; a channel's ``severity`` filters by page priority; with no channel
  the page waits in the outbox and goes out when one appears;
- a URL that failed is retried by later runs with backoff (1, 2, 4 … 60 min) for 24 h;
- a paused role or desk, or an attempt a person acknowledged, pages no one (held);
  a silence holds non-urgent pages for its role, quiet hours hold them on one channel;
- when the demand resolves, the channels that took the page get one "settled" follow-up;
  a page nobody received is resolved silently.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from deskd.adapters.channels.base import SEND_BUDGET_S, Delivery, Target, Transport, scrub
from deskd.adapters.channels.outbox import outbox_reason
from deskd.core.timeparse import local_text
from deskd.core.values import URGENT, priority_name
from deskd.service.channels import (
    Channel,
    all_channels,
    routes,
    secrets_of,
    targets_of,
    var_values,
)
from deskd.service.context import DeskContext
from deskd.service.pages import channel_view
from deskd.service.silences import quiet_until, silence_hold
from deskd.store import pages as page_rows
from deskd.store.attempts import attempts_for_key
from deskd.store.events import add_event
from deskd.store.pauses import live_pauses

RETRY_WINDOW_MS = 24 * 3600 * 1000
BACKOFF_CAP_MIN = 60
LEASE_MS = 2 * 60 * 1000
RECHECK_MS = 60 * 1000
"""A hold with no known end (a pause) is looked at again on the next tick."""
RUN_BUDGET_S = 40.0
"""One pager run stops starting sends after this long; the rest go on the next tick."""
MAX_PAGES_PER_RUN = 50


def backoff_ms(tries: int) -> int:
    """1, 2, 4 … minutes after the 1st, 2nd, 3rd … failed try, capped at an hour."""
    minutes: int = min(BACKOFF_CAP_MIN, 2 ** max(0, tries - 1))
    return minutes * 60 * 1000


def deliver_pages(
    ctx: DeskContext, *, only: list[int] | None = None, transport: Transport | None = None
) -> list[dict[str, Any]]:
    """Send what is due (new pages, retries whose backoff passed, held pages whose hold
    ended, "settled" follow-ups); record each result. Called by an executing tick after its
    transaction committed (and by `deskd page` for the page it just queued)."""
    started = time.monotonic()
    reports: list[dict[str, Any]] = []
    if only is None:
        settle_resolved(ctx)
    for row in page_rows.due_pages(ctx.conn, now=ctx.now, limit=MAX_PAGES_PER_RUN):
        if only is not None and int(row["id"]) not in only:
            continue
        if time.monotonic() - started > RUN_BUDGET_S:
            break
        report = send_one_page(ctx, row, transport=transport)
        if report is not None:
            reports.append(report)
    return reports


def settle_resolved(ctx: DeskContext) -> list[int]:
    """Queue one "settled — no action needed" row per resolved key whose page reached someone,
    addressed to exactly the channel URLs that took it (LESSONS 13)."""
    created: list[int] = []
    with ctx.write() as conn:
        groups: dict[str, list[sqlite3.Row]] = {}
        for row in page_rows.unsettled_pages(conn):
            groups.setdefault(str(row["key"]), []).append(row)
        for key, rows in groups.items():
            entries: dict[tuple[str, str], dict[str, Any]] = {}
            for row in rows:
                for e in json.loads(row["results"] or "[]"):
                    if e.get("status") == "sent":
                        entries.setdefault((e["name"], e["url"]), _entry(e["name"], e["url"]))
            first = rows[0]
            title = str(first["title"]).removeprefix("deskd: ")
            settled_id = page_rows.insert_settled(
                conn,
                attempt_id=int(first["attempt_id"]),
                key=key,
                role=str(first["role"]),
                title=f"deskd: settled — no action needed ({first['role']}, {key})",
                body=(
                    f"Settled — no action needed.\nRole: {first['role']}\nWas: {title}\n"
                    f"Resolved: {local_text(first['resolved_at'], ctx.tz)}"
                ),
                results=json.dumps(list(entries.values())),
                now=ctx.now,
            )
            for row in rows:
                page_rows.mark_settled(conn, int(row["id"]), settled_id=settled_id)
            created.append(settled_id)
    return created


def _entry(name: str, url: str) -> dict[str, Any]:
    return {"name": name, "url": url, "status": "pending", "error": None, "tries": 0}


def send_one_page(
    ctx: DeskContext, row: sqlite3.Row, *, transport: Transport | None = None
) -> dict[str, Any] | None:
    """One unit of the pager: route, hold or send one page, and record how it went.
    Returns a report of what was sent (masked), or None when nothing went out."""
    now = ctx.now
    page_id = int(row["id"])
    kind = str(row["kind"])
    urgent = int(row["priority"]) >= URGENT
    entries: list[dict[str, Any]] = json.loads(row["results"] or "[]")
    channels = all_channels(ctx.settings, ctx.desk)

    if not entries and kind != "settled":
        entries, why = _route(ctx, row)
        if not entries:
            _finish(ctx, row, entries, hold=(None, why), recheck=True)
            return None

    hold = None if kind == "settled" else _page_hold(ctx, row, urgent=urgent)
    if hold is not None:
        _finish(ctx, row, entries, hold=hold, recheck=hold[0] is None)
        return None

    due = _due_entries(ctx, row, entries, channels, urgent=urgent)
    if not due:
        _finish(ctx, row, entries)
        return None
    if not _claim(ctx, row):
        return None  # another pager took it

    values = var_values(ctx.settings)
    targets, unresolved = _targets(entries, due, channels, values)
    for index, error in unresolved.items():
        _mark(entries[index], Delivery(key="", ok=False, error=error), now=now)
    delivered: dict[str, Delivery] = {}
    if targets:
        sender = transport or _apprise()
        text = _body(ctx, row)
        delivered = sender.send(
            [t for t, _ in targets],
            title=str(row["title"]),
            body=text,
            kind=kind,
            budget_s=SEND_BUDGET_S,
        )
    for target, index in targets:
        result = delivered.get(target.key) or Delivery(key=target.key, ok=False, error="not sent")
        secrets = secrets_of(target.url, values)
        if result.error:
            result = Delivery(key=result.key, ok=False, error=scrub(result.error, secrets))
        _mark(entries[index], result, now=now)
    status = _finish(ctx, row, entries, sent_now=any(d.ok for d in delivered.values()))
    report = {
        "page_id": page_id,
        "kind": kind,
        "role": row["role"],
        "status": status,
        "channels": [_public(e) for e in entries],
    }
    with ctx.write() as conn:
        add_event(
            conn,
            at=now,
            kind=f"page.{status}",
            role=row["role"],
            subject=f"page:{page_id}",
            detail={"channels": report["channels"]},
        )
    return report


def _apprise() -> Transport:
    from deskd.adapters.channels.apprise import AppriseTransport

    return AppriseTransport()


def _route(ctx: DeskContext, row: sqlite3.Row) -> tuple[list[dict[str, Any]], str]:
    """First send: fix the page's channel URLs (entries), or say why it waits in the outbox."""
    role = str(row["role"])
    priority = priority_name(int(row["priority"]))
    picked = routes(ctx.settings, ctx.desk, role)
    taking = [c for c in picked if c.takes(priority)]
    values = var_values(ctx.settings)
    entries = [_entry(c.name, t.masked) for c in taking for t in _safe_targets(c, values)]
    return entries, outbox_reason(role, priority, filtered=bool(picked) and not taking)


def _safe_targets(channel: Channel, values: dict[str, str]) -> list[Target]:
    try:
        return targets_of(channel, values)
    except Exception:  # an unreadable apprise config file: its channel has nothing to send to
        return []


def _page_hold(
    ctx: DeskContext, row: sqlite3.Row, *, urgent: bool
) -> tuple[int | None, str] | None:
    """Why the whole page is held now: (until or None, why); None when it may go out."""
    role = str(row["role"])
    for pause in live_pauses(ctx.conn):
        if pause["role"] is None or pause["role"] == role:
            who = "the desk" if pause["role"] is None else role
            return None, f"paused: {who} ({pause['reason']})"
    live = [
        a for a in attempts_for_key(ctx.conn, str(row["key"]), limit=5) if a["outcome"] == "pending"
    ]
    if live and live[0]["ack_until"] is not None and int(live[0]["ack_until"]) > ctx.now:
        return int(live[0]["ack_until"]), f"acknowledged by a person: {live[0]['ack_note']}"
    if not urgent:
        held = silence_hold(ctx.conn, role, now=ctx.now)
        if held is not None:
            return held
    return None


def _due_entries(
    ctx: DeskContext,
    row: sqlite3.Row,
    entries: list[dict[str, Any]],
    channels: dict[str, Channel],
    *,
    urgent: bool,
) -> list[int]:
    """Indexes of the entries to send now; quiet hours mark non-urgent ones held."""
    now = ctx.now
    expired = now >= int(row["created_at"]) + RETRY_WINDOW_MS
    due = []
    for index, e in enumerate(entries):
        status = e.get("status")
        if status == "sent":
            continue
        if status == "failed" and (expired or int(e.get("retry_at") or 0) > now):
            if expired:
                e["gave_up"] = True
            continue
        channel = channels.get(str(e["name"]))
        quiet = None
        if channel is not None and not urgent and row["kind"] != "settled":
            quiet = quiet_until(channel.quiet, now=now, tz=ctx.tz)
        if quiet is not None and channel is not None:
            e.update(
                status="held", until=quiet, why=f"quiet hours on {channel.name} ({channel.quiet})"
            )
            continue
        due.append(index)
    return due


def _targets(
    entries: list[dict[str, Any]],
    due: list[int],
    channels: dict[str, Channel],
    values: dict[str, str],
) -> tuple[list[tuple[Target, int]], dict[int, str]]:
    """The real URL behind each due entry (found again by channel and masked URL); an entry
    whose URL needs an unset ``${VAR}`` fails with that reason instead of being sent."""
    found: list[tuple[Target, int]] = []
    missing: dict[int, str] = {}
    cache: dict[str, list[Target]] = {}
    for index in due:
        e = entries[index]
        channel = channels.get(str(e["name"]))
        if channel is None:
            missing[index] = f"channel {e['name']!r} is no longer configured"
            continue
        if channel.name not in cache:
            cache[channel.name] = _safe_targets(channel, values)
        match = next((t for t in cache[channel.name] if t.masked == e["url"]), None)
        if match is None:
            missing[index] = f"URL no longer in channel {channel.name!r}"
            continue
        if match.problem is not None:
            missing[index] = match.problem
            continue
        found.append((Target(key=f"e{index}", url=match.url, masked=match.masked), index))
    return found, missing


def _mark(entry: dict[str, Any], result: Delivery, *, now: int) -> None:
    tries = int(entry.get("tries") or 0) + 1
    entry.update(tries=tries, at=now, until=None, why=None)
    if result.ok:
        entry.update(status="sent", error=None, retry_at=None)
    else:
        entry.update(status="failed", error=result.error, retry_at=now + backoff_ms(tries))


def _claim(ctx: DeskContext, row: sqlite3.Row) -> bool:
    with ctx.write() as conn:
        return page_rows.claim_page(
            conn, int(row["id"]), tries=int(row["tries"]), lease_until=ctx.now + LEASE_MS
        )


def _finish(
    ctx: DeskContext,
    row: sqlite3.Row,
    entries: list[dict[str, Any]],
    *,
    hold: tuple[int | None, str] | None = None,
    recheck: bool = False,
    sent_now: bool = False,
) -> str:
    """Write the page's status, results, next try and hold from its entries."""
    now = ctx.now
    expired = now >= int(row["created_at"]) + RETRY_WINDOW_MS
    sent = [e for e in entries if e.get("status") == "sent"]
    failed = [e for e in entries if e.get("status") == "failed"]
    held = [e for e in entries if e.get("status") == "held"]
    if entries and len(sent) == len(entries):
        status = "sent"
    elif sent:
        status = "partial"
    elif failed:
        status = "failed"
    elif held or (hold is not None and entries):
        status = "held"
    else:
        status = "held" if hold is not None and hold[0] is not None else "queued"
    wakes = [int(e["retry_at"]) for e in failed if e.get("retry_at") and not expired]
    wakes += [int(e["until"]) for e in held if e.get("until")]
    held_until, held_why = None, None
    if hold is not None:
        held_until, held_why = hold
        wakes = [held_until] if held_until is not None else []
    elif held:
        first = min(held, key=lambda e: int(e.get("until") or 0))
        held_until, held_why = first.get("until"), first.get("why")
    if recheck:
        wakes.append(now + RECHECK_MS)
    if any(e.get("status") == "pending" for e in entries) and hold is None:
        wakes.append(now)
    next_try = min(wakes) if wakes else None
    # A one-shot message (a notice, a "settled") is closed once nothing is left to try.
    done = next_try is None and row["kind"] in ("notice", "settled")
    with ctx.write() as conn:
        page_rows.finish_page(
            conn,
            int(row["id"]),
            status=status,
            results=json.dumps(entries),
            sent_at=now if sent_now else None,
            next_try_at=next_try,
            held_until=held_until,
            held_why=held_why,
            resolved_at=now if done else None,
        )
    return status


def _public(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry as `deskd pages` and the tick report show it (the URL is already masked)."""
    return {**channel_view(entry), "gave_up": bool(entry.get("gave_up"))}


def _body(ctx: DeskContext, row: sqlite3.Row) -> str:
    """The stored body plus how to act now (the console URL when configured)."""
    body = str(row["body"] or "")
    if row["kind"] not in ("page", "follow_up"):
        return body
    live = attempts_for_key(ctx.conn, str(row["key"]), limit=5)
    pending = [a for a in live if a["outcome"] == "pending"]
    attempt_id = pending[0]["id"] if pending else row["attempt_id"]  # it may have climbed since
    lines = [body, ""]
    lines.append(
        f'Act: once someone has it, `deskd wake ack {attempt_id} --note "…"` '
        f"stops the climb (`deskd wake explain --role {row['role']}` shows it)."
    )
    console = ctx.desk.section.console_url
    if console:
        lines.append(f"Console: {console.rstrip('/')}/")
    return "\n".join(lines)
