"""Meeting messages, reply obligations, end proposals and votes: one named function per
statement. Idempotency comes from unique indexes (duplicates, one position per attendee, one
open proposal), not from checking first."""

from __future__ import annotations

import json
from collections.abc import Sequence

from deskd.core.meetings import Obligation, Proposal
from deskd.store.dialect import Connection, Sql
from deskd.store.meetings import LIVE_MEETINGS as _LIVE
from deskd.store.query import marks as _marks
from deskd.store.records import maybe_record, records_of
from deskd.store.records.inbox import Confirmation

# --- messages ---------------------------------------------------------------------------------


def insert_message(
    conn: Connection,
    *,
    meeting_id: int,
    sender: str,
    kind: str,
    body: str,
    body_key: str,
    recipients: Sequence[str],
    reply_to: int | None,
    resolves: Sequence[int],
    spent: bool,
    now: int,
) -> int | None:
    """The new message's id, or None when it duplicates one (``meeting_messages_dedup``) or is a
    second position (``meeting_messages_position``)."""
    to, resolved = ",".join(recipients), json.dumps(list(resolves))
    row = conn.execute(
        "INSERT INTO meeting_messages (meeting_id, sender, kind, body, body_key, recipients, "
        "reply_to, resolves, spent, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING RETURNING id",
        (meeting_id, sender, kind, body, body_key, to, reply_to, resolved, int(spent), now),
    ).fetchone()
    return None if row is None else int(row[0])


def duplicate_of(
    conn: Connection, *, meeting_id: int, sender: str, recipients: Sequence[str], body_key: str
) -> int | None:
    row = conn.execute(
        "SELECT id FROM meeting_messages WHERE meeting_id = ? AND sender = ? AND recipients = ? "
        "AND body_key = ?",
        (meeting_id, sender, ",".join(recipients), body_key),
    ).fetchone()
    return None if row is None else int(row[0])


def position_of(conn: Connection, meeting_id: int, role: str) -> int | None:
    row = conn.execute(
        "SELECT id FROM meeting_messages WHERE meeting_id = ? AND sender = ? AND kind = 'position'",
        (meeting_id, role),
    ).fetchone()
    return None if row is None else int(row[0])


def message_ids_in(conn: Connection, meeting_id: int, ids: Sequence[int]) -> list[int]:
    if not ids:
        return []
    rows = conn.execute(
        f"SELECT id FROM meeting_messages WHERE meeting_id = ? AND id IN ({_marks(ids)})",
        (meeting_id, *ids),
    ).fetchall()
    return [int(r[0]) for r in rows]


def insert_obligation(
    conn: Connection,
    *,
    meeting_id: int,
    message_id: int,
    debtor: str,
    creditor: str,
    now: int,
    due_at: int,
) -> None:
    conn.execute(
        "INSERT INTO meeting_obligations (meeting_id, message_id, debtor, creditor, created_at, "
        "due_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        (meeting_id, message_id, debtor, creditor, now, due_at),
    )


_OBLIGATION_COLUMNS = (
    "o.id, o.meeting_id, o.message_id, o.debtor, o.creditor, o.due_at, o.created_at, "
    "substr(m.body, 1, 200) AS body"
)


def open_obligations(conn: Connection, meeting_id: int) -> list[Obligation]:
    rows = conn.execute(
        f"SELECT {_OBLIGATION_COLUMNS} FROM meeting_obligations o "
        "JOIN meeting_messages m ON m.id = o.message_id "
        "WHERE o.meeting_id = ? AND o.status = 'open' ORDER BY o.due_at, o.id",
        (meeting_id,),
    )
    return records_of(Obligation, rows)


def live_open_obligations(conn: Connection) -> list[Obligation]:
    rows = conn.execute(
        f"SELECT {_OBLIGATION_COLUMNS} FROM meeting_obligations o "
        "JOIN meeting_messages m ON m.id = o.message_id "
        f"WHERE o.meeting_id IN ({_LIVE}) AND o.status = 'open' ORDER BY o.due_at, o.id"
    )
    return records_of(Obligation, rows)


def settle_obligations(
    conn: Connection,
    meeting_id: int,
    debtor: str,
    message_ids: Sequence[int],
    *,
    by_message: int | None,
    reason: str,
    now: int,
) -> list[int]:
    """Settle the debtor's open obligations on ``message_ids``; returns the messages settled."""
    if not message_ids:
        return []
    rows = conn.execute(
        "UPDATE meeting_obligations SET status = 'settled', closed_at = ?, closed_by = ?, "
        "close_reason = ? WHERE meeting_id = ? AND debtor = ? AND status = 'open' "
        f"AND message_id IN ({_marks(message_ids)}) RETURNING message_id",
        (now, by_message, reason, meeting_id, debtor, *message_ids),
    ).fetchall()
    return sorted(int(r[0]) for r in rows)


def settle_all_of(
    conn: Connection, meeting_id: int, debtor: str, *, reason: str, now: int
) -> list[int]:
    rows = conn.execute(
        "UPDATE meeting_obligations SET status = 'settled', closed_at = ?, close_reason = ? "
        "WHERE meeting_id = ? AND debtor = ? AND status = 'open' RETURNING message_id",
        (now, reason, meeting_id, debtor),
    ).fetchall()
    return sorted(int(r[0]) for r in rows)


def waive_obligations(conn: Connection, meeting_id: int, *, reason: str, now: int) -> int:
    return conn.execute(
        "UPDATE meeting_obligations SET status = 'waived', closed_at = ?, close_reason = ? "
        "WHERE meeting_id = ? AND status = 'open'",
        (now, reason, meeting_id),
    ).rowcount


_PUSH_DUE = Sql(  # a scalar MAX(a, b) is GREATEST(a, b) in PostgreSQL
    sqlite="UPDATE meeting_obligations SET due_at = MAX(due_at, ?) "
    "WHERE meeting_id = ? AND status = 'open'",
    postgresql="UPDATE meeting_obligations SET due_at = GREATEST(due_at, ?) "
    "WHERE meeting_id = ? AND status = 'open'",
)


def push_due(conn: Connection, meeting_id: int, *, due_at: int) -> int:
    """After a resume, open debts are due one reply SLA from now (they were unpayable)."""
    return conn.execute(_PUSH_DUE, (due_at, meeting_id)).rowcount


# --- proposals and votes ----------------------------------------------------------------------


def insert_proposal(
    conn: Connection, *, meeting_id: int, proposer: str, resolution: str, generation: int, now: int
) -> int | None:
    """A new open proposal, or None when one is already open (``meeting_proposals_open``)."""
    row = conn.execute(
        "INSERT INTO meeting_proposals (meeting_id, proposer, resolution, generation, opened_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id",
        (meeting_id, proposer, resolution, generation, now),
    ).fetchone()
    return None if row is None else int(row[0])


def open_proposal(conn: Connection, meeting_id: int) -> Proposal | None:
    row = conn.execute(
        "SELECT * FROM meeting_proposals WHERE meeting_id = ? AND status = 'open'", (meeting_id,)
    ).fetchone()
    return maybe_record(Proposal, row)


def live_open_proposals(conn: Connection) -> list[Proposal]:
    rows = conn.execute(
        f"SELECT * FROM meeting_proposals WHERE meeting_id IN ({_LIVE}) AND status = 'open'"
    )
    return records_of(Proposal, rows)


def confirmations(conn: Connection, proposal_ids: Sequence[int]) -> list[Confirmation]:
    if not proposal_ids:
        return []
    rows = conn.execute(
        "SELECT proposal_id, role FROM meeting_votes WHERE vote = 'confirm' "
        f"AND proposal_id IN ({_marks(proposal_ids)})",
        tuple(proposal_ids),
    )
    return records_of(Confirmation, rows)


def insert_vote(
    conn: Connection, *, proposal_id: int, role: str, vote: str, reason: str | None, now: int
) -> int:
    return conn.execute(
        "INSERT INTO meeting_votes (proposal_id, role, vote, reason, at) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING",
        (proposal_id, role, vote, reason, now),
    ).rowcount


def finish_proposal(conn: Connection, proposal_id: int, *, status: str, now: int) -> int:
    return conn.execute(
        "UPDATE meeting_proposals SET status = ?, closed_at = ? WHERE id = ? AND status = 'open'",
        (status, now, proposal_id),
    ).rowcount


def reject_proposal(
    conn: Connection, proposal_id: int, *, by: str, reason: str, generation: int, now: int
) -> int:
    return conn.execute(
        "UPDATE meeting_proposals SET status = 'rejected', closed_at = ?, rejected_by = ?, "
        "reject_reason = ?, reject_gen = ? WHERE id = ? AND status = 'open'",
        (now, by, reason, generation, proposal_id),
    ).rowcount


def set_reject_item(conn: Connection, proposal_id: int, item_id: int) -> None:
    conn.execute(
        "UPDATE meeting_proposals SET reject_item_id = ? WHERE id = ?", (item_id, proposal_id)
    )


_UNREAD_REJECTIONS = (
    "SELECT p.* FROM meeting_proposals p JOIN items i ON i.id = p.reject_item_id "
    "WHERE p.status = 'rejected' AND i.read_at IS NULL"
)


def unread_rejections(conn: Connection, meeting_id: int) -> list[Proposal]:
    """Rejected proposals of the meeting whose notice the proposer has not read."""
    rows = conn.execute(f"{_UNREAD_REJECTIONS} AND p.meeting_id = ? ORDER BY p.id", (meeting_id,))
    return records_of(Proposal, rows)


def live_unread_rejections(conn: Connection) -> list[Proposal]:
    rows = conn.execute(f"{_UNREAD_REJECTIONS} AND p.meeting_id IN ({_LIVE}) ORDER BY p.id")
    return records_of(Proposal, rows)
