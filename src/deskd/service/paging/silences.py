"""Noise control: silences (a person holds a role's non-urgent pages for a while) and quiet
hours (a channel holds non-urgent pages in its local night). Urgent pages always go out."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from deskd.core.timeparse import from_ms, iso_utc, local_text, parse_duration, to_ms
from deskd.errors import InvalidValue, PeopleOnly, SilenceOver, UnknownSilence
from deskd.service.desk.context import DeskContext
from deskd.store.pages import release_held_pages
from deskd.store.pauses import (
    close_open,
    end_silence,
    get_silence,
    insert_silence,
    list_silences,
)
from deskd.store.pauses import live_silences as live_silence_rows
from deskd.store.records import JSON, shown

if TYPE_CHECKING:
    from deskd.store.dialect import Connection
    from deskd.store.records.roles import Silence

MAX_SILENCE_S = 30 * 86400


def _operator(ctx: DeskContext) -> str:
    if ctx.settings.role:
        # Silencing is a person's decision; an agent must not mute the pages about itself.
        raise PeopleOnly("silences")
    return ctx.actor


def silence_view(row: Silence, *, now: int, tz: str) -> JSON:
    """One silence as ``deskd silence list`` shows it (``silence add`` adds the ids it
    ``replaced``, ``silence end`` the ``pages_released``)."""
    return {
        **shown(row, "id role reason started_at", iso="started_at"),
        "until": iso_utc(row.until_at),
        "until_local": local_text(row.until_at, tz),
        "ended_at": iso_utc(row.ended_at),
        "live": row.ended_at is None and int(row.until_at) > now,
    }


def add(ctx: DeskContext, *, role: str, duration: str, reason: str) -> JSON:
    by = _operator(ctx)
    ctx.desk.role(role)
    seconds = parse_duration(duration, what="--for")
    if not 0 < seconds <= MAX_SILENCE_S:
        raise InvalidValue("--for", duration, "longer than zero and at most 30d")
    if not reason.strip():
        raise InvalidValue("reason", reason, "say why, so the next person knows")
    until = ctx.now + seconds * 1000
    with ctx.write(role) as conn:
        # One silence per role (the store's index silences_one_open): the new one replaces
        # the role's silence in force, whether it ends sooner or later.
        replaced = close_open(conn, role, by=by, now=ctx.now)
        silence_id = insert_silence(conn, role=role, reason=reason, until=until, by=by, now=ctx.now)
        said = partial(ctx.event, conn, role=role, actor=by)
        for old in replaced:
            said("silence.ended", f"silence:{old}", detail={"replaced_by": silence_id})
        said(
            "silence.added",
            f"silence:{silence_id}",
            detail={"reason": reason, "until": iso_utc(until)},
        )
        row = get_silence(conn, silence_id)
    assert row is not None
    return {**silence_view(row, now=ctx.now, tz=ctx.tz), "replaced": replaced}


def listing(ctx: DeskContext, *, all_rows: bool, limit: int) -> list[JSON]:
    rows = (
        list_silences(ctx.conn, limit=limit)
        if all_rows
        else live_silence_rows(ctx.conn, now=ctx.now)
    )
    return [silence_view(r, now=ctx.now, tz=ctx.tz) for r in rows]


def end(ctx: DeskContext, silence_id: int) -> JSON:
    by = _operator(ctx)
    with ctx.write() as conn:
        row = get_silence(conn, silence_id)
        if row is None:
            raise UnknownSilence(silence_id)
        if not end_silence(conn, silence_id, by=by, now=ctx.now):
            raise SilenceOver(silence_id)
        released = release_held_pages(conn, str(row.role), now=ctx.now)
        ctx.event(conn, "silence.ended", f"silence:{silence_id}", role=row.role, actor=by)
        row = get_silence(conn, silence_id)
    assert row is not None
    return {**silence_view(row, now=ctx.now, tz=ctx.tz), "pages_released": released}


def silence_hold(conn: Connection, role: str, *, now: int) -> tuple[int, str] | None:
    """(until, why) when a silence holds ``role``'s non-urgent pages now; the latest wins."""
    rows = [r for r in live_silence_rows(conn, now=now) if r.role == role]
    if not rows:
        return None
    row = max(rows, key=lambda r: int(r.until_at))
    return int(row.until_at), f"silenced (silence {row.id}): {row.reason}"


def quiet_until(spec: str | None, *, now: int, tz: str) -> int | None:
    """When ``now`` falls in the local window ``HH:MM-HH:MM`` (``22:00-07:00`` crosses
    midnight), the instant the window ends; otherwise None."""
    if not spec:
        return None
    start, stop = (_minutes(p.strip()) for p in spec.split("-"))
    local = from_ms(now, tz)
    minute = local.hour * 60 + local.minute
    if start == stop:
        return None
    if start < stop:
        inside = start <= minute < stop
        end_day = local.date()
    else:
        inside = minute >= start or minute < stop
        end_day = local.date() + timedelta(days=1) if minute >= start else local.date()
    if not inside:
        return None
    hh, mm = divmod(stop, 60)
    end = datetime(end_day.year, end_day.month, end_day.day, hh, mm, tzinfo=ZoneInfo(tz))
    return to_ms(end)


def _minutes(text: str) -> int:
    hh, mm = text.split(":")
    return int(hh) * 60 + int(mm)
