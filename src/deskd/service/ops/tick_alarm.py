"""The missed-tick alarm: a running console pages the desk's default channels once when a
host's executing ticks stop, and sends "settled" when they resume.

``check_ticks(ctx)`` is a function of ``ctx.now``: ``deskd serve`` calls it periodically,
tests with any instant. One ``stopped`` row per host per silence, named by the host's last
tick before it, so two consoles page once; each channel URL's result goes through the pager's
state machine (core/paging.py), and a "settled" goes to exactly the URLs that took the alarm.

With no console running nothing inside deskd watches the ticks: ``DESKD_TICK_PING_URL``
(service/paging/tickping.py) is then the way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from deskd.adapters.channels.base import Transport
from deskd.core.paging import Entry, entries_of, outcome, results_of, triage
from deskd.core.timeparse import human_age, iso_utc, local_text
from deskd.service.desk.context import DeskContext
from deskd.service.desk.presence import is_overdue, overdue_after_s
from deskd.store import pages as rows
from deskd.store.hosts import list_hosts
from deskd.store.pauses import live_pauses

if TYPE_CHECKING:
    from deskd.store.records.wakes import TickAlarm

CHECK_EVERY_S = 30.0
"""How often ``deskd serve`` checks: well inside the default 3-minute mark."""
LEASE_MS = 2 * 60 * 1000
MAX_PER_CHECK = 20
NO_ROLE = ""
"""The alarm belongs to no role: routing it gives the desk's default channels (and
``DESKD_NOTIFY_URLS``)."""
PRIORITY = "high"
"""Not urgent: a channel's quiet hours and severity filter apply, as to any high page."""


def check_ticks(ctx: DeskContext, *, transport: Transport | None = None) -> list[dict[str, Any]]:
    """Record each host's alarm or its settling at ``ctx.now``, then send what is due;
    returns a report per message that went out."""
    record_alarms(ctx)
    due = rows.due_alarms(ctx.conn, now=ctx.now, limit=MAX_PER_CHECK)
    reports = [send_one_alarm(ctx, alarm, transport=transport) for alarm in due]
    return [report for report in reports if report is not None]


def record_alarms(ctx: DeskContext) -> list[int]:
    """Write a ``stopped`` row for each host newly overdue, and a ``settled`` row for each
    earlier stop of a host that has ticked since; the new rows' ids."""
    after_s = overdue_after_s(ctx.settings)
    created: list[int] = []
    with ctx.write() as conn:
        open_stops: dict[str, list[TickAlarm]] = {}
        for stop in rows.unsettled_stops(conn):
            open_stops.setdefault(stop.host, []).append(stop)
        for host, _first, last, _count in list_hosts(conn):
            for stop in open_stops.get(host, []):
                if stop.last_tick_at < last:  # the host ticked since that stop
                    created.extend(_settle(ctx, conn, stop, last))
            if is_overdue(last, now=ctx.now, after_s=after_s):
                entries = _route(ctx)
                new = rows.insert_alarm(
                    conn,
                    host=host,
                    kind="stopped",
                    last_tick_at=last,
                    title=f"deskd: host {host} stopped ticking",
                    body=_stopped_body(ctx, host, last, after_s),
                    results=results_of(entries),
                    due=True,
                    now=ctx.now,
                )
                if new is not None:
                    created.append(new)
                    _event(conn, ctx, "tick.stopped", host, new, last)
    return created


def _settle(ctx: DeskContext, conn: Any, stop: TickAlarm, last: int) -> list[int]:
    took = [Entry(name=e.name, url=e.url) for e in entries_of(stop.results) if e.status == "sent"]
    rows.stop_sending(conn, stop.id)
    settled = rows.insert_alarm(
        conn,
        host=stop.host,
        kind="settled",
        last_tick_at=stop.last_tick_at,
        title=f"deskd: settled — host {stop.host} ticks again",
        body=(
            f"Settled — no action needed.\nHost {stop.host} ticks again "
            f"(last tick {local_text(last, ctx.tz)}).\nWas: no tick since "
            f"{local_text(stop.last_tick_at, ctx.tz)}."
        ),
        results=results_of(took),
        due=bool(took),  # nobody got the alarm: it settles silently
        now=ctx.now,
    )
    if settled is None:
        return []
    _event(conn, ctx, "tick.settled", stop.host, settled, last)
    return [settled]


def send_one_alarm(
    ctx: DeskContext, alarm: TickAlarm, *, transport: Transport | None = None
) -> dict[str, Any] | None:
    """Hold, or claim and send, one due row; record how it went. A report when it was sent:
    its row, where it went and how each channel URL took it."""
    from deskd.service.paging.channels import all_channels
    from deskd.service.paging.pager import quiet_channels, send_due

    now = ctx.now
    entries = entries_of(alarm.results)
    channels = all_channels(ctx.settings, ctx.desk)
    quiet = {}
    if alarm.kind == "stopped":
        paused = next((p for p in live_pauses(ctx.conn) if p.role is None), None)
        if paused is not None:
            _finish(ctx, alarm, entries, hold=(None, f"paused: the desk ({paused.reason})"))
            return None
        quiet = quiet_channels(ctx, entries, channels)
    entries_now, due = triage(entries, quiet=quiet, now=now, created_at=alarm.created_at)
    if not due:
        _finish(ctx, alarm, entries_now)
        return None
    with ctx.write() as conn:
        if not rows.claim_alarm(conn, alarm.id, tries=alarm.tries, lease_until=now + LEASE_MS):
            return None  # another console took it
    # The side effect: the due URLs, found again by channel and masked URL, sent once.
    kind = "notice" if alarm.kind == "stopped" else "settled"
    after, sent_now = send_due(
        ctx.settings, entries_now, due, channels, title=alarm.title, body=alarm.body, kind=kind,
        transport=transport, now=now,
    )  # fmt: skip
    status = _finish(ctx, alarm, after, sent_now=sent_now)
    return {
        "alarm_id": alarm.id,
        "host": alarm.host,
        "kind": alarm.kind,
        "status": status,
        "channels": [{"name": e.name, "url": e.url, "status": e.status} for e in after],
    }


def _route(ctx: DeskContext) -> tuple[Entry, ...]:
    """The alarm's channel URLs (masked), fixed when it is recorded."""
    from deskd.service.paging.channels import routes, var_values
    from deskd.service.paging.pager import safe_targets

    values = var_values(ctx.settings)
    return tuple(
        Entry(name=c.name, url=t.masked)
        for c in routes(ctx.settings, ctx.desk, NO_ROLE)
        if c.takes(PRIORITY)
        for t in safe_targets(c, values)
    )


def _finish(
    ctx: DeskContext,
    alarm: TickAlarm,
    entries: Sequence[Entry],
    *,
    hold: tuple[int | None, str] | None = None,
    sent_now: bool = False,
) -> str:
    after = outcome(
        entries,
        kind="notice",
        created_at=alarm.created_at,
        now=ctx.now,
        hold=hold,
        recheck=hold is not None,
    )
    why = after.held_why or (None if entries else "no channel: the desk has no default_channels")
    with ctx.write() as conn:
        rows.finish_alarm(
            conn,
            alarm.id,
            status=after.status,
            results=results_of(entries),
            sent_at=ctx.now if sent_now else None,
            next_try_at=after.next_try_at,
            held_why=why,
        )
    return after.status


def _stopped_body(ctx: DeskContext, host: str, last: int, after_s: int) -> str:
    return (
        f"No executing tick from host {host} since {local_text(last, ctx.tz)} "
        f"({human_age((ctx.now - last) / 1000)} ago; the mark is {human_age(after_s)}).\n"
        "Until it ticks again nothing is planned, launched or paged for the roles it runs.\n"
        f"On {host}: `deskd timer status` or `deskd cron-line --check`, and logs/tick.log."
    )


def _event(conn: Any, ctx: DeskContext, kind: str, host: str, alarm_id: int, last: int) -> None:
    ctx.event(
        conn, kind, f"tick_alarm:{alarm_id}", detail={"host": host, "last_tick_at": iso_utc(last)}
    )


def watch_ticks(
    settings: Any, *, clock: Any, stop: Any, every_s: float = CHECK_EVERY_S, say: Any = None
) -> None:
    """``deskd serve``'s background loop: a check now, then every ``every_s`` until ``stop``
    (a ``threading.Event``) is set. ``clock`` gives each check's instant; a failed check
    is reported through ``say`` and the next one runs anyway."""
    from deskd.service.desk.context import open_context

    while True:
        try:
            ctx = open_context(settings=settings, now=clock())
            try:
                check_ticks(ctx)
            finally:
                ctx.close()
        except Exception as exc:  # a locked database, a broken desk file: try again later
            if say is not None:
                say(f"deskd serve: missed-tick check failed: {type(exc).__name__}: {exc}")
        if stop.wait(every_s):
            return
