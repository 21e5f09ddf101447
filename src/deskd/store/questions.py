"""Questions agents ask people (``deskd ask``): one row each, answered once."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from deskd.store.query import select_where
from deskd.store.records import records_of
from deskd.store.records.work import Question

if TYPE_CHECKING:
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
) -> bool:
    """Record the answer once; False when the question was answered (or expired) already."""
    return (
        conn.execute(
            "UPDATE questions SET answer = ?, answered_by = ?, answered_at = ?, "
            "answer_item_id = ? WHERE id = ? AND answered_at IS NULL",
            (answer, by, now, item_id, question_id),
        ).rowcount
        == 1
    )
