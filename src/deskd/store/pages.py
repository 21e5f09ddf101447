"""Pages: a ledger row first (``queued``), sent after the tick commits, completed after; and
the missed-tick alarm's ledger (``tick_alarms``), kept the same way."""

from __future__ import annotations

from deskd.store.dialect import Connection
from deskd.store.query import select_where
from deskd.store.records import maybe_record, records_of
from deskd.store.records.wakes import Page, TickAlarm


def insert_page(
    conn: Connection,
    *,
    attempt_id: int,
    key: str,
    role: str,
    kind: str,
    priority: int,
    title: str,
    body: str,
    now: int,
    results: str = "[]",
) -> int:
    """A page row, due at once. A ``settled`` follow-up carries ``results``: the channels
    that took the pages it settles, the only ones it is sent to."""
    cur = conn.execute(
        "INSERT INTO pages (attempt_id, key, role, kind, priority, title, body, created_at, "
        "next_try_at, results) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (attempt_id, key, role, kind, priority, title, body, now, now, results),
    )
    return int(cur.fetchone()[0])


def open_page_keys(conn: Connection) -> set[str]:
    rows = conn.execute(
        "SELECT DISTINCT key FROM pages WHERE resolved_at IS NULL AND kind = 'page'"
    ).fetchall()
    return {str(r[0]) for r in rows}


def resolve_pages_for_key(conn: Connection, key: str, *, now: int) -> int:
    """The demand is gone: close the key's open pages (retraction comes with the pager)."""
    return conn.execute(
        "UPDATE pages SET resolved_at = ?, "
        "status = CASE WHEN status IN ('queued', 'held') THEN 'resolved' ELSE status END "
        "WHERE key = ? AND resolved_at IS NULL",
        (now, key),
    ).rowcount


_WITH_REF = (
    "SELECT pages.*, attempts.ref AS attempt_ref FROM pages "
    "LEFT JOIN attempts ON attempts.id = pages.attempt_id"
)


def list_pages(conn: Connection, *, open_only: bool, limit: int) -> list[Page]:
    """Pages newest first, each with its attempt's ``ref`` (where the owed work lives)."""
    rows = select_where(
        conn,
        _WITH_REF,
        "pages.resolved_at IS NULL" if open_only else None,
        # ``+``: open pages through their partial index, not history in id order.
        order="+pages.id DESC" if open_only else "pages.id DESC",
        limit=limit,
    )
    return records_of(Page, rows)


def notice_keys_since(conn: Connection, since: int) -> set[str]:
    """Notices (usage limits, daily caps) paged since ``since``: each is paged only once."""
    rows = conn.execute(
        "SELECT DISTINCT key FROM pages WHERE kind = 'notice' AND created_at >= ?", (since,)
    ).fetchall()
    return {str(r[0]) for r in rows}


# -- the pager (sending, retries, holds, settled follow-ups) ---------------------------


def due_pages(conn: Connection, *, now: int, limit: int) -> list[Page]:
    """Open pages whose next try has come (new, held, outbox, or retrying), urgent first."""
    rows = conn.execute(
        "SELECT * FROM pages WHERE resolved_at IS NULL AND next_try_at <= ? "
        "ORDER BY priority DESC, id LIMIT ?",
        (now, limit),
    ).fetchall()
    return records_of(Page, rows)


def claim_page(conn: Connection, page_id: int, *, tries: int, lease_until: int) -> bool:
    """Take a page for one send (compare-and-set on ``tries``): two racing pagers send it once.

    The lease moves ``next_try_at`` ahead, so a pager that dies mid-send leaves the page to be
    retried when the lease runs out.
    """
    cur = conn.execute(
        "UPDATE pages SET tries = tries + 1, next_try_at = ? "
        "WHERE id = ? AND tries = ? AND resolved_at IS NULL",
        (lease_until, page_id, tries),
    )
    return cur.rowcount == 1


def finish_page(
    conn: Connection,
    page_id: int,
    *,
    status: str,
    results: str,
    sent_at: int | None,
    next_try_at: int | None,
    held_until: int | None,
    held_why: str | None,
    resolved_at: int | None,
) -> None:
    """Record how a send went: per-channel results, status, the next try, any hold."""
    conn.execute(
        "UPDATE pages SET status = ?, results = ?, sent_at = COALESCE(sent_at, ?), "
        "next_try_at = ?, held_until = ?, held_why = ?, "
        "resolved_at = COALESCE(resolved_at, ?) WHERE id = ?",
        (status, results, sent_at, next_try_at, held_until, held_why, resolved_at, page_id),
    )


def unsettled_pages(conn: Connection) -> list[Page]:
    """Resolved pages that reached someone and have had no "settled" follow-up yet."""
    rows = conn.execute(
        "SELECT * FROM pages WHERE resolved_at IS NOT NULL AND settled_id IS NULL "
        "AND status IN ('sent', 'partial') AND kind IN ('page', 'follow_up') ORDER BY key, id"
    ).fetchall()
    return records_of(Page, rows)


def mark_settled(conn: Connection, page_id: int, *, settled_id: int) -> None:
    conn.execute(
        "UPDATE pages SET settled_id = ? WHERE id = ? AND settled_id IS NULL", (settled_id, page_id)
    )


def release_held_pages(conn: Connection, role: str, *, now: int) -> int:
    """A hold on ``role`` ended early (``silence end``): look at its held pages on the next run."""
    return conn.execute(
        "UPDATE pages SET next_try_at = ? "
        "WHERE role = ? AND resolved_at IS NULL AND held_until IS NOT NULL",
        (now, role),
    ).rowcount


def use_page_link(conn: Connection, signature: str, *, page_id: int, action: str, now: int) -> int:
    """Record a page link as used; 0 when it was used before (a replay)."""
    return conn.execute(
        "INSERT INTO page_links_used (signature, page_id, action, used_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(signature) DO NOTHING",
        (signature, page_id, action, now),
    ).rowcount


def get_page(conn: Connection, page_id: int) -> Page | None:
    """One page with its attempt's ``ref`` (an emailed reply names it)."""
    row = select_where(conn, _WITH_REF, ("pages.id = ?", page_id), order="pages.id").fetchone()
    return maybe_record(Page, row)


# --- the missed-tick alarm's ledger (tick_alarms) -------------------------------------------------
# A row is written before its channels are called (``queued``, due at once) and finished
# after; a send is claimed by compare-and-set on ``tries``, so two consoles send it once.


def insert_alarm(
    conn: Connection,
    *,
    host: str,
    kind: str,
    last_tick_at: int,
    title: str,
    body: str,
    results: str,
    due: bool,
    now: int,
) -> int | None:
    """The row's id; None when this host's silence already has its ``kind`` row."""
    status, next_try = ("queued", now) if due else ("resolved", None)
    row = conn.execute(
        "INSERT INTO tick_alarms (host, kind, last_tick_at, title, body, status, created_at, "
        "next_try_at, results) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (host, kind, last_tick_at) DO NOTHING RETURNING id",
        (host, kind, last_tick_at, title, body, status, now, next_try, results),
    ).fetchone()
    return None if row is None else int(row[0])


def unsettled_stops(conn: Connection) -> list[TickAlarm]:
    """``stopped`` rows with no ``settled`` row yet, oldest first."""
    rows = conn.execute(
        "SELECT * FROM tick_alarms s WHERE s.kind = 'stopped' AND NOT EXISTS "
        "(SELECT 1 FROM tick_alarms t WHERE t.host = s.host AND t.kind = 'settled' "
        "AND t.last_tick_at = s.last_tick_at) ORDER BY s.id"
    )
    return records_of(TickAlarm, rows)


def stop_sending(conn: Connection, alarm_id: int) -> int:
    """The host ticks again: a ``stopped`` row not yet sent is never sent (resolved)."""
    return conn.execute(
        "UPDATE tick_alarms SET next_try_at = NULL, "
        "status = CASE WHEN status IN ('queued', 'held') THEN 'resolved' ELSE status END "
        "WHERE id = ?",
        (alarm_id,),
    ).rowcount


def due_alarms(conn: Connection, *, now: int, limit: int) -> list[TickAlarm]:
    """Rows whose next try has come, oldest first."""
    rows = conn.execute(
        "SELECT * FROM tick_alarms WHERE next_try_at IS NOT NULL AND next_try_at <= ? "
        "ORDER BY id LIMIT ?",
        (now, limit),
    )
    return records_of(TickAlarm, rows)


def claim_alarm(conn: Connection, alarm_id: int, *, tries: int, lease_until: int) -> int:
    """Take a row for one send (compare-and-set on ``tries``); the lease moves its next try."""
    return conn.execute(
        "UPDATE tick_alarms SET tries = tries + 1, next_try_at = ? "
        "WHERE id = ? AND tries = ? AND next_try_at IS NOT NULL",
        (lease_until, alarm_id, tries),
    ).rowcount


def finish_alarm(
    conn: Connection,
    alarm_id: int,
    *,
    status: str,
    results: str,
    sent_at: int | None,
    next_try_at: int | None,
    held_why: str | None,
) -> None:
    """Record how a look or a send went."""
    conn.execute(
        "UPDATE tick_alarms SET status = ?, results = ?, sent_at = COALESCE(sent_at, ?), "
        "next_try_at = ?, held_why = ? WHERE id = ?",
        (status, results, sent_at, next_try_at, held_why, alarm_id),
    )
