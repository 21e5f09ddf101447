"""Questions agents ask people (``deskd ask``): one row each, answered once; and the help
requests that page them (and every other ``deskd page --from R``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from deskd.store.dialect import Sql
from deskd.store.query import select_where
from deskd.store.records import records_of
from deskd.store.records.work import Question

if TYPE_CHECKING:
    from deskd.core.records import HelpRequest
    from deskd.store.dialect import Connection


def options_of(question: Question) -> list[str] | None:
    """A question's choices (None: it takes words)."""
    return json.loads(question.options) if question.options else None


def insert_question(
    conn: Connection,
    *,
    role: str,
    item_id: int,
    text: str,
    options: str | None,
    task_id: int | None,
    now: int,
    expires_at: int,
) -> int:
    row = conn.execute(
        "INSERT INTO questions (role, item_id, text, options, task_id, asked_at, expires_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (role, item_id, text, options, task_id, now, expires_at),
    ).fetchone()
    return int(row[0])


def list_questions(
    conn: Connection, *, id: int | None = None, item_id: int | None = None, open_only: bool = False
) -> list[Question]:
    """Questions newest first: one by ``id`` or by its help ``item_id``, or the open ones."""
    rows = select_where(
        conn,
        "SELECT * FROM questions",
        ("id = ?", id),
        ("item_id = ?", item_id),
        "answered_at IS NULL" if open_only else None,
        order="id DESC",
        limit=500,
    )
    return records_of(Question, rows)


def question_for_key(conn: Connection, key: str) -> Question | None:
    """The question a page about ``key`` asks (a ``help:<item>`` key), or None."""
    found = key.startswith("help:") and list_questions(conn, item_id=int(key[5:]))
    return found[0] if found else None


def expired_questions(conn: Connection, *, now: int) -> list[Question]:
    rows = conn.execute(
        "SELECT * FROM questions WHERE answered_at IS NULL AND expires_at <= ? ORDER BY expires_at",
        (now,),
    )
    return records_of(Question, rows)


def answer_question(
    conn: Connection, question_id: int, *, answer: str, by: str, item_id: int, now: int
) -> int:
    """Record the answer once; 0 when the question was answered (or expired) already."""
    return conn.execute(
        "UPDATE questions SET answer = ?, answered_by = ?, answered_at = ?, "
        "answer_item_id = ? WHERE id = ? AND answered_at IS NULL",
        (answer, by, now, item_id, question_id),
    ).rowcount


# --- help requests: the items agents created with deskd page --from R -----------------------------


def insert_help_request(
    conn: Connection, *, item_id: int, role: str, now: int, held_work: str | None = None
) -> None:
    conn.execute(
        "INSERT INTO help_requests (item_id, role, created_at, held_work) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (item_id) DO NOTHING",
        (item_id, role, now, held_work),
    )


def _over_unread(columns: str, where: str = "") -> Sql:
    """Help requests joined from the unread items: SQLite is told to walk ``items_unread``
    first (``INDEXED BY``, ``CROSS JOIN``); PostgreSQL plans the plain join that way itself."""
    rest = f"help_requests AS h WHERE h.item_id = i.id AND i.read_at IS NULL {where} ORDER BY i.id"
    return Sql(
        sqlite=f"SELECT {columns} FROM items AS i INDEXED BY items_unread CROSS JOIN {rest}",
        postgresql=f"SELECT {columns} FROM items AS i CROSS JOIN {rest}",
    )


def held_work(conn: Connection) -> list[tuple[int, str, str, str]]:
    """(item id, holder role, capability, work as JSON) of each open help request that holds
    work no role could take, oldest first."""
    rows = conn.execute(
        _over_unread("i.id, i.role, i.capability, h.held_work", "AND h.held_work IS NOT NULL")
    ).fetchall()
    return [(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]


def open_help_requests(conn: Connection) -> list[HelpRequest]:
    """Help requests whose item is still unread; walks unread items (``items_unread``) first,
    so the cost follows live rows, not the history of every request ever made."""
    from deskd.core.records import HelpRequest

    columns = "i.id AS item_id, i.role, i.title, i.body, i.enqueued_at, i.capability, i.priority"
    return records_of(HelpRequest, conn.execute(_over_unread(columns)))
