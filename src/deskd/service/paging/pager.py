"""The pager: send queued pages through channels after the tick commits, record each result.

A page row is written ``queued`` by the tick (the ledger first); this module, outside any
write transaction, claims it by compare-and-set, sends it through apprise (each send bounded
by ``SEND_BUDGET_S``) and records one result per channel URL. It is a list of bounded steps
(``settle_resolved``, then ``send_one_page`` per due page, under a per-run budget): a crash
between steps leaves rows the next run picks up. The per-URL state machine is core/paging.py;
the routing, retry, hold and "settled" rules are docs/architecture.md "Pages and channels"
(lessons 12–13).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from deskd.adapters.channels.base import (
    SEND_BUDGET_S,
    Delivery,
    Target,
    Transport,
    outbox_reason,
    scrub,
)
from deskd.core.paging import (
    Entry,
    Hold,
    entries_of,
    mark,
    outcome,
    page_token,
    results_of,
    triage,
)
from deskd.core.timeparse import local_text
from deskd.core.values import URGENT, priority_name
from deskd.service.desk.context import DeskContext
from deskd.service.paging.channels import (
    Channel,
    all_channels,
    default_transport,
    routes,
    secrets_of,
    targets_of,
    var_values,
)
from deskd.service.paging.links import action_lines, link_key, reply_tag
from deskd.service.paging.pages import channel_view
from deskd.service.paging.silences import quiet_until, silence_hold
from deskd.store import pages as page_rows
from deskd.store.attempts import attempts_for_key
from deskd.store.pauses import live_pauses
from deskd.store.questions import options_of, question_for_key
from deskd.store.records import JSON, shown

if TYPE_CHECKING:
    from deskd.config.settings import Settings
    from deskd.store.records.wakes import Page

LEASE_MS = 2 * 60 * 1000
RUN_BUDGET_S = 40.0
"""One pager run stops starting sends after this long; the rest go on the next tick."""
MAX_PAGES_PER_RUN = 50


PageReport = JSON
"""What the pager sent for one page (URLs masked), the tick report's ``pages_sent``: its
``page_id``, ``kind``, ``role``, ``status`` and each of its ``channels`` (``channel_view``
and whether its retries ran out, ``gave_up``)."""


def deliver_pages(
    ctx: DeskContext, *, only: list[int] | None = None, transport: Transport | None = None
) -> list[PageReport]:
    """Send what is due (new pages, retries whose backoff passed, held pages whose hold
    ended, "settled" follow-ups); record each result. Called by an executing tick after its
    transaction committed (and by `deskd page` for the page it just queued)."""
    started = time.monotonic()
    reports: list[PageReport] = []
    if only is None:
        settle_resolved(ctx)
    for page in page_rows.due_pages(ctx.conn, now=ctx.now, limit=MAX_PAGES_PER_RUN):
        if only is not None and page.id not in only:
            continue
        if time.monotonic() - started > RUN_BUDGET_S:
            break
        report = send_one_page(ctx, page, transport=transport)
        if report is not None:
            reports.append(report)
    return reports


def settle_resolved(ctx: DeskContext) -> list[int]:
    """Queue one "settled — no action needed" row per resolved key whose page reached someone,
    addressed to exactly the channel URLs that took it (lesson 13)."""
    created: list[int] = []
    with ctx.write() as conn:
        groups: dict[str, list[Page]] = {}
        for page in page_rows.unsettled_pages(conn):
            groups.setdefault(page.key, []).append(page)
        for key, pages in groups.items():
            took: dict[tuple[str, str], Entry] = {}
            for page in pages:
                for e in entries_of(page.results):
                    if e.status == "sent":
                        took.setdefault((e.name, e.url), Entry(name=e.name, url=e.url))
            first = pages[0]
            title = first.title.removeprefix("deskd: ")
            resolved = local_text(first.resolved_at, ctx.tz) if first.resolved_at else None
            settled_id = page_rows.insert_page(
                conn,
                attempt_id=first.attempt_id,
                key=key,
                role=first.role,
                kind="settled",
                priority=3,
                title=f"deskd: settled — no action needed ({first.role}, {key})",
                body=(
                    f"Settled — no action needed.\nRole: {first.role}\nWas: {title}\n"
                    f"Resolved: {resolved}"
                ),
                results=results_of(list(took.values())),
                now=ctx.now,
            )
            for page in pages:
                page_rows.mark_settled(conn, page.id, settled_id=settled_id)
            created.append(settled_id)
    return created


def send_one_page(
    ctx: DeskContext, page: Page, *, transport: Transport | None = None
) -> PageReport | None:
    """One unit of the pager: route, hold or send one page, and record how it went.
    Returns a report of what was sent (masked), or None when nothing went out."""
    now = ctx.now
    urgent = page.priority >= URGENT
    entries = entries_of(page.results)
    channels = all_channels(ctx.settings, ctx.desk)

    if not entries and page.kind != "settled":
        entries, why = _route(ctx, page)
        if not entries:
            _finish(ctx, page, entries, hold=(None, why), recheck=True)
            return None

    hold = None if page.kind == "settled" else _page_hold(ctx, page, urgent=urgent)
    if hold is not None:
        _finish(ctx, page, entries, hold=hold, recheck=hold[0] is None)
        return None

    quiet = {} if urgent or page.kind == "settled" else quiet_channels(ctx, entries, channels)
    entries, due = triage(entries, quiet=quiet, now=now, created_at=page.created_at)
    if not due:
        _finish(ctx, page, entries)
        return None
    with ctx.write() as conn:
        claimed = page_rows.claim_page(conn, page.id, tries=page.tries, lease_until=now + LEASE_MS)
    if not claimed:
        return None  # another pager took it

    # The side effect: send the due entries, and say how each went (errors scrubbed).
    body = _body(ctx, page)
    after, sent_now = send_due(
        ctx.settings, entries, due, channels, title=_title(ctx, page), body=body, kind=page.kind,
        transport=transport, now=now,
    )  # fmt: skip
    status = _finish(ctx, page, after, sent_now=sent_now)
    # As `deskd pages` shows a channel URL (already masked), and whether its retries ran out.
    channels_json = [{**channel_view(e._asdict()), "gave_up": e.gave_up} for e in after]
    report: PageReport = {
        "page_id": page.id,
        **shown(page, "kind role"),
        "status": status,
        "channels": channels_json,
    }
    with ctx.write() as conn:
        detail = {"channels": channels_json}
        ctx.event(conn, f"page.{status}", f"page:{page.id}", role=page.role, detail=detail)
    return report


def send_due(
    settings: Settings,
    entries: Sequence[Entry],
    due: Sequence[int],
    channels: dict[str, Channel],
    *,
    title: str,
    body: str,
    kind: str,
    transport: Transport | None,
    now: int,
) -> tuple[list[Entry], bool]:
    """Send one message to the due entries (by channel and masked URL), once: the entries
    marked with how each went (errors scrubbed of the URLs' secrets), and whether any was
    sent. A page's message, or the tick alarm's."""
    values = var_values(settings)
    targets, unresolved = due_targets(entries, due, channels, values)
    results = {
        index: Delivery(key="", ok=False, error=error) for index, error in unresolved.items()
    }
    delivered: dict[str, Delivery] = {}
    if targets:
        sender = transport or default_transport()
        delivered = sender.send(
            [t for t, _ in targets], title=title, body=body, kind=kind, budget_s=SEND_BUDGET_S
        )
    for target, index in targets:
        result = delivered.get(target.key) or Delivery(key=target.key, ok=False, error="not sent")
        if result.error:
            error = scrub(result.error, secrets_of(target.url, values))
            result = Delivery(key=result.key, ok=False, error=error)
        results[index] = result
    after = list(entries)
    for index, result in results.items():
        after[index] = mark(entries[index], ok=result.ok, error=result.error, now=now)
    return after, any(r.ok for r in results.values())


def _route(ctx: DeskContext, page: Page) -> tuple[tuple[Entry, ...], str]:
    """First send: fix the page's channel URLs (entries), or say why it waits in the outbox."""
    priority = priority_name(page.priority)
    picked = routes(ctx.settings, ctx.desk, page.role)
    taking = [c for c in picked if c.takes(priority)]
    values = var_values(ctx.settings)
    entries = tuple(
        Entry(name=c.name, url=t.masked) for c in taking for t in safe_targets(c, values)
    )
    return entries, outbox_reason(page.role, priority, filtered=bool(picked) and not taking)


def safe_targets(channel: Channel, values: dict[str, str]) -> list[Target]:
    try:
        return targets_of(channel, values)
    except Exception:  # an unreadable apprise config file: its channel has nothing to send to
        return []


def _page_hold(ctx: DeskContext, page: Page, *, urgent: bool) -> Hold | None:
    """Why the whole page is held now: (until or None, why); None when it may go out."""
    for pause in live_pauses(ctx.conn):
        if pause.role is None or pause.role == page.role:
            who = "the desk" if pause.role is None else page.role
            return None, f"paused: {who} ({pause.reason})"
    live = [a for a in attempts_for_key(ctx.conn, page.key, limit=5) if a.outcome == "pending"]
    acked = live[0].ack_until if live else None
    if acked is not None and acked > ctx.now:
        return acked, f"acknowledged by a person: {live[0].ack_note}"
    if not urgent:
        held = silence_hold(ctx.conn, page.role, now=ctx.now)
        if held is not None:
            return held
    return None


def quiet_channels(
    ctx: DeskContext, entries: Sequence[Entry], channels: dict[str, Channel]
) -> dict[str, tuple[int, str]]:
    """The entries' channels now in quiet hours: name → (until, why)."""
    quiet: dict[str, tuple[int, str]] = {}
    for name in {e.name for e in entries}:
        channel = channels.get(name)
        until = None if channel is None else quiet_until(channel.quiet, now=ctx.now, tz=ctx.tz)
        if channel is not None and until is not None:
            quiet[name] = (until, f"quiet hours on {channel.name} ({channel.quiet})")
    return quiet


def due_targets(
    entries: Sequence[Entry],
    due: Sequence[int],
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
        channel = channels.get(e.name)
        if channel is None:
            missing[index] = f"channel {e.name!r} is no longer configured"
            continue
        if channel.name not in cache:
            cache[channel.name] = safe_targets(channel, values)
        # Two URLs of a channel may mask alike: the n-th entry shown as X is its n-th URL shown as X.
        rank = sum(1 for f in entries[:index] if (f.name, f.url) == (e.name, e.url))
        alike = [t for t in cache[channel.name] if t.masked == e.url]
        match = alike[rank] if rank < len(alike) else None
        if match is None:
            missing[index] = f"URL no longer in channel {channel.name!r}"
            continue
        if match.problem is not None:
            missing[index] = match.problem
            continue
        found.append((Target(key=f"e{index}", url=match.url, masked=match.masked), index))
    return found, missing


def _finish(
    ctx: DeskContext,
    page: Page,
    entries: Sequence[Entry],
    *,
    hold: Hold | None = None,
    recheck: bool = False,
    sent_now: bool = False,
) -> str:
    """Write the page's status, results, next try and hold from its entries."""
    now = ctx.now
    after = outcome(
        entries, kind=page.kind, created_at=page.created_at, now=now, hold=hold, recheck=recheck
    )
    with ctx.write() as conn:
        page_rows.finish_page(
            conn,
            page.id,
            status=after.status,
            results=results_of(entries),
            sent_at=now if sent_now else None,
            next_try_at=after.next_try_at,
            held_until=after.held_until,
            held_why=after.held_why,
            resolved_at=now if after.closed else None,
        )
    return after.status


def _body(ctx: DeskContext, page: Page) -> str:
    """The stored body plus how to act now: the shell commands, and signed action links
    when the console's address is known (service/paging/links.py)."""
    body = page.body or ""
    if page.kind not in ("page", "follow_up"):
        return body
    pending = [a for a in attempts_for_key(ctx.conn, page.key, limit=5) if a.outcome == "pending"]
    attempt_id = pending[0].id if pending else page.attempt_id  # it may have climbed since
    asked = question_for_key(ctx.conn, page.key)
    lines = action_lines(
        ctx.settings,
        ctx.desk,
        page_id=page.id,
        role=page.role,
        attempt_id=attempt_id,
        now=ctx.now,
        question=(asked.id, options_of(asked)) if asked else None,
    )
    return "\n".join([body, "", *lines])


def _title(ctx: DeskContext, page: Page) -> str:
    """The sent title: a page a person can act on names its id and tag, which a reply quotes
    back (service/engine/replies.py checks the tag)."""
    if page.kind not in ("page", "follow_up"):
        return page.title
    return f"{page.title} {page_token(page.id, reply_tag(link_key(ctx.settings), page.id))}"
