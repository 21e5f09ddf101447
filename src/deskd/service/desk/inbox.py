"""Items and the delivery ledger: enqueue, list, ack, and the ledger view."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple

from deskd.core.timeparse import iso_utc, parse_duration
from deskd.core.values import (
    DEFAULT_SLA_S,
    LEDGER_STATES,
    MAX_TEXT,
    RESERVED_SOURCES,
    check_text,
    ledger_state,
    priority_name,
    priority_rank,
)
from deskd.errors import (
    AckNeedsTarget,
    InvalidValue,
    ReservedSource,
    UnknownItem,
    UnknownSource,
)
from deskd.routing.store import mark_item_routed
from deskd.service.desk.context import DeskContext
from deskd.service.desk.identity import known_role
from deskd.store import items as item_rows
from deskd.store.attempts import covered_item_ids
from deskd.store.records import JSON, shown

if TYPE_CHECKING:
    from deskd.store.dialect import Connection
    from deskd.store.records.inbox import Item

MAX_TITLE = MAX_TEXT["--title"]
_MAX_ROWID = 2**63 - 1
MAX_BODY = 64 * 1024


class NewItem(NamedTuple):
    """An item to enqueue for ``role``, before its priority, SLA and text are checked."""

    role: str
    source: str
    title: str
    body: str = ""
    ref: str | None = None
    priority: str = "normal"
    dedup_key: str | None = None
    sla: str | int | None = None
    sender: str | None = None
    message_id: str | None = None


def check_source(ctx: DeskContext, source: str) -> None:
    """Sources come from the desk's ``inbox_sources``; deskd's own are refused."""
    allowed = ctx.desk.section.inbox_sources
    if source in RESERVED_SOURCES:
        raise ReservedSource(source, allowed)
    if source not in allowed:
        raise UnknownSource(source, allowed)


def sla_seconds(priority: str, sla: str | int | None) -> int:
    if sla is None or sla == "":
        return DEFAULT_SLA_S[priority]
    return positive_seconds(sla, "SLA")


def positive_seconds(value: str | int, what: str) -> int:
    """Seconds given as a number or a duration (``90s``, ``5m``); refused unless longer than zero."""
    seconds = value if isinstance(value, int) else parse_duration(value, what=what)
    if seconds <= 0:
        raise InvalidValue(what, value, "must be longer than zero")
    return seconds


def check_length(what: str, text: str, limit: int) -> None:
    """Refuse ``text`` longer than ``limit`` characters, quoting only its start."""
    if len(text) > limit:
        raise InvalidValue(what, text[:40] + "…", f"at most {limit} characters")


def validate_text(title: str, body: str) -> None:
    check_text("title", title, MAX_TITLE)
    check_text("body", body, MAX_BODY)
    if not title.strip():
        raise InvalidValue("title", title, "must not be empty")


def insert(conn: Connection, item: NewItem, *, now: int) -> tuple[int, bool]:
    """Write one validated item inside the caller's transaction; returns (id, deduped)."""
    fields = item._asdict()
    del fields["sla"]
    fields |= {
        "priority": priority_rank(item.priority),
        "dedup_key": (item.dedup_key or "").strip() or None,
        "sla_due_at": now + sla_seconds(item.priority, item.sla) * 1000,
    }
    return item_rows.insert_item(conn, now=now, **fields)


def check_item(ctx: DeskContext, item: NewItem) -> None:
    """Refuse a bad source, priority, SLA or text before anything is written."""
    check_source(ctx, item.source)
    priority_rank(item.priority)
    sla_seconds(item.priority, item.sla)
    validate_text(item.title, item.body)
    check_text("--ref", item.ref)
    check_text("--dedup-key", item.dedup_key)


def enqueue(
    ctx: DeskContext, item: NewItem, *, routed: tuple[str, str] | None = None
) -> tuple[int, bool]:
    """Add an item for a role from an allowed source; coalesces on an unread dedup key.

    ``routed`` is (capability, why) when capability routing chose the role.
    """
    known_role(ctx, item.role)
    check_item(ctx, item)
    with ctx.write(item.role) as conn:
        item_id, deduped = insert(conn, item, now=ctx.now)
        if routed is not None and not deduped:
            mark_item_routed(conn, item_id, capability=routed[0], why=routed[1])
        kind = "item.deduped" if deduped else "item.enqueued"
        detail = {"source": item.source, "priority": item.priority}
        ctx.event(conn, kind, f"item:{item_id}", role=item.role, detail=detail)
    return item_id, deduped


def item_view(row: Item, *, now: int, full: bool = False) -> JSON:
    """An item as `inbox list --json` shows it; ``full`` adds the keys after ``enqueued_at``."""
    view = {
        "id": row.id,
        **_described(row, now=now, escalated=False),
        "enqueued_at": iso_utc(row.enqueued_at),
    }
    if full:
        view |= {"to": row.role, "from": row.sender}
        view |= shown(row, "body ref message_id dedup_key")
        view["seen"] = row.seen_at is not None
        view |= shown(row, "sla_due_at read_at", iso="sla_due_at read_at")
    return view


def list_inbox(
    ctx: DeskContext, role: str, *, include_read: bool = False, limit: int = 200
) -> list[Item]:
    """The role's unread items, urgent first (or recent items of every state with ``include_read``).

    When the role itself lists (``DESKD_ROLE`` is the role), the unread items listed count
    as seen, so ``inbox ack --seen`` covers exactly them; an operator's list is a peek.
    """
    ctx.desk.role(role)
    conn = ctx.conn
    rows = (
        item_rows.recent_items(conn, role, limit=limit)
        if include_read
        else item_rows.unread_items(conn, role)[:limit]
    )
    if ctx.settings.role == role:
        unseen = [r.id for r in rows if r.read_at is None and r.seen_at is None]
        if unseen:
            with ctx.write(role) as wconn:
                item_rows.mark_shown(wconn, unseen, session=None, now=ctx.now)
            rows = [item_rows.get_item(conn, r.id) or r for r in rows]
    return rows


def ack(
    ctx: DeskContext, role: str, *, ids: Sequence[int] = (), seen: bool = False, by: str
) -> int:
    """Mark read exactly the given ids, or exactly the items the role was shown."""
    ctx.desk.role(role)
    if ids and seen:
        raise InvalidValue("ack", "--id/--seen", "give either --id N ... or --seen, not both")
    if not ids and not seen:
        raise AckNeedsTarget(role)
    with ctx.write(role) as conn:
        if ids:
            wanted = sorted(set(ids))
            # An id past SQLite's integer range names no row (and cannot be bound at all).
            possible = [i for i in wanted if 0 < i <= _MAX_ROWID]
            found = set(item_rows.unread_ids_among(conn, role, possible))
            missing = [i for i in wanted if i not in found]
            if missing:
                raise UnknownItem(missing, role)
            count = item_rows.ack_items(conn, role, wanted, now=ctx.now, by=by)
        else:
            count = item_rows.ack_seen_items(conn, role, now=ctx.now, by=by)
        if count:
            detail = {"count": count, "ids": sorted(set(ids)) if ids else "seen"}
            ctx.event(conn, "item.acked", role=role, actor=by, detail=detail)
    return count


def ledger(
    ctx: DeskContext, *, role: str | None = None, state: str | None = None, limit: int = 200
) -> list[JSON]:
    """The delivery ledger per (item, recipient), newest first, with derived states."""
    if role is not None:
        ctx.desk.role(role)
    if state is not None and state not in LEDGER_STATES:
        raise InvalidValue("state", state, "choose one of: " + ", ".join(LEDGER_STATES))
    unread_only = state is not None and state != "read"
    # An overdue item that a live wake attempt covers is "escalated", not just "overdue".
    covered = covered_item_ids(ctx.conn)
    out: list[JSON] = []
    for row in _ledger_pages(ctx, role=role, unread_only=unread_only, page=max(limit, 1000)):
        entry = ledger_entry(row, now=ctx.now, escalated=row.id in covered)
        if state is None or entry["state"] == state:
            out.append(entry)
        if len(out) >= limit:
            break
    return out


_LEDGER_TIMES = "notified_at read_at sla_due_at"
"""The instants an item's ledger state is derived from."""


def _described(row: Item, *, now: int, escalated: bool) -> JSON:
    """What an item is and its ledger state now, for both the inbox and the ledger views."""
    return {
        "source": row.source,
        "priority": priority_name(row.priority),
        "title": row.title,
        "state": ledger_state(**shown(row, _LEDGER_TIMES), now=now, escalated=escalated),
    }


def ledger_entry(row: Item, *, now: int, escalated: bool) -> JSON:
    """One (item, recipient) of the delivery ledger (``inbox ledger``, the board's overdue),
    its state derived at read time."""
    return {
        "item_id": row.id,
        "to": row.role,
        **_described(row, now=now, escalated=escalated),
        "queued_at": iso_utc(row.enqueued_at),
        **shown(row, _LEDGER_TIMES, iso=_LEDGER_TIMES),
    }


def _ledger_pages(
    ctx: DeskContext, *, role: str | None, unread_only: bool, page: int
) -> Iterator[Item]:
    """Ledger rows newest first, a page at a time. States are derived in core (one predicate),
    so a state filter reads on until it has enough instead of stopping at a fixed window."""
    before: int | None = None
    while True:
        rows = item_rows.ledger_rows(
            ctx.conn, role=role, unread_only=unread_only, limit=page, before_id=before
        )
        yield from rows
        if len(rows) < page:
            return
        before = int(rows[-1].id)
