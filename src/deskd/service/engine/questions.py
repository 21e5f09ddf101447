"""`deskd ask`: an agent asks a person for a decision and waits on it; `deskd answer`.

A question pages like a help request (it IS one: routing, quiet hours, silences, climbing;
service/engine/help.py), recorded with it in one transaction, and blocks the role's current
task (``blocked on question N``). An answer — by a page's link, the console or `deskd answer`
— is recorded once (compare-and-set), answers the help request, unblocks the task and lands
in the role's inbox as an urgent item from the person, which wakes the role: its session is
resumed with the answer in the prompt. A question nobody answers by ``expires_at`` goes back
to the agent the same way, as "no answer" (``expire_questions``, on every executing tick).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from deskd.core.values import DEFAULT_SLA_S, priority_rank
from deskd.errors import InvalidValue, PeopleCommand, QuestionAnswered, UnknownQuestion
from deskd.service.desk.context import DeskContext
from deskd.service.desk.identity import acting_role
from deskd.service.desk.inbox import validate_text
from deskd.service.engine.help import raise_help
from deskd.service.work.tasks import TaskUpdate, update_task
from deskd.store import questions as rows
from deskd.store.items import ack_items, insert_item
from deskd.store.questions import options_of
from deskd.store.records import JSON, shown
from deskd.store.records.work import Question
from deskd.store.tasks import get_task, list_tasks

if TYPE_CHECKING:
    from deskd.store.dialect import Connection

QUESTION_TTL_S = 24 * 3600
"""How long a question waits for a person before it goes back as "no answer"."""
MAX_OPTIONS = 10
NO_ANSWER = "no answer"
_TIMES = "asked_at expires_at answered_at"


def view(q: Question) -> JSON:
    """`deskd questions --json`: one question and where it stands (open, answered, expired)."""
    state = "open" if q.answered_at is None else "answered"
    if q.answered_by == "deskd" and q.answer == NO_ANSWER:
        state = "expired"
    return {
        **shown(q, "id role text"),
        "options": options_of(q),
        "state": state,
        **shown(q, "task_id asked_at expires_at answer answered_by answered_at", iso=_TIMES),
    }


def _parse_options(text: str | None) -> list[str] | None:
    if text is None:
        return None
    options = [o.strip() for o in text.split(",") if o.strip()]
    if not 2 <= len(options) <= MAX_OPTIONS or len({o.lower() for o in options}) < len(options):
        raise InvalidValue(
            "--options", text, f"give 2 to {MAX_OPTIONS} different choices, e.g. yes,no"
        )
    for option in options:
        if len(option) > 40:
            raise InvalidValue("--options", option, "each choice is at most 40 characters")
    return options


def ask(ctx: DeskContext, text: str, *, options: str | None, role: str | None = None) -> JSON:
    """Record a question for ``role`` (the session's), page a person, block the current task.
    Returns `deskd ask --json`: the question's id, and the help request that pages it."""
    name = acting_role(ctx, "--from", role)
    choices = _parse_options(options)
    validate_text(text, "")
    current = list_tasks(ctx.conn, role=name, open_only=True, limit=200)
    task = next((t for t in current if t.status == "in_progress"), None)
    asked: dict[str, int] = {}

    def record(conn: Connection, item_id: int) -> None:
        qid = rows.insert_question(
            conn,
            role=name,
            item_id=item_id,
            text=text,
            options=json.dumps(choices) if choices else None,
            task_id=task.id if task else None,
            now=ctx.now,
            expires_at=ctx.now + QUESTION_TTL_S * 1000,
        )
        asked["id"] = qid
        if task is not None:
            update_task(
                ctx, task.id, TaskUpdate(status="blocked", blocked_on=f"question {qid}"), by=name
            )

    how = f"Choices: {', '.join(choices)}." if choices else "Answer in words."
    body = f"{text}\n\n{how} The agent waits for the answer."
    raised = raise_help(
        ctx, role=name, title=f"question: {text}", body=body, actor=name, on_item=record
    )
    return {"id": asked["id"], "task_id": task.id if task else None, "help": raised}


def get_question(ctx: DeskContext, question_id: int) -> Question:
    found = rows.list_questions(ctx.conn, id=question_id)
    if not found:
        raise UnknownQuestion(question_id)
    return found[0]


def answer(ctx: DeskContext, question_id: int, text: str, *, how: str = "") -> JSON:
    """A person's answer: one of the options (any case), or words when none were given."""
    if ctx.settings.role:
        raise PeopleCommand("deskd answer", "a person answers; you wait for the answer item")
    q = get_question(ctx, question_id)
    choices = options_of(q)
    given = text.strip()
    if choices is not None:
        match = [c for c in choices if c.lower() == given.lower()]
        if not match:
            raise InvalidValue("answer", text, "choose one of: " + ", ".join(choices))
        given = match[0]
    validate_text(given, "")
    return _settle(ctx, q, given, by=ctx.actor, how=how)


def expire_questions(ctx: DeskContext) -> list[int]:
    """Send each question past its expiry back to its agent as "no answer" (the tick's step)."""
    expired = rows.expired_questions(ctx.conn, now=ctx.now)
    for q in expired:
        _settle(ctx, q, NO_ANSWER, by="deskd", how="nobody answered in time")
    return [q.id for q in expired]


def _settle(ctx: DeskContext, q: Question, answer_text: str, *, by: str, how: str) -> JSON:
    """Record the answer once, answer the help request, unblock the task, tell the agent."""
    said = f"{answer_text!r} from {'a person' if by != 'deskd' else 'deskd'}"
    with ctx.write() as conn:
        if rows.list_questions(conn, id=q.id)[0].answered_at is not None:
            raise QuestionAnswered(q.id)  # before any insert: a refusal spends no id either
        item_id, _ = insert_item(
            conn,
            role=q.role,
            source=by if by != "deskd" else "system",
            priority=priority_rank("urgent"),
            title=f"answer to question {q.id}: {answer_text}",
            body=f"Your question {q.id}: {q.text}\nAnswer: {said}" + (f" ({how})" if how else ""),
            ref=f"question:{q.id}",
            dedup_key=None,
            now=ctx.now,
            sla_due_at=ctx.now + DEFAULT_SLA_S["urgent"] * 1000,
        )
        if not rows.answer_question(
            conn, q.id, answer=answer_text, by=by, item_id=item_id, now=ctx.now
        ):
            raise QuestionAnswered(q.id)
        ack_items(conn, q.role, [q.item_id], now=ctx.now, by=by)  # the page settles
        task = get_task(conn, q.task_id) if q.task_id is not None else None
        if task is not None and task.status == "blocked" and task.blocked_on == f"question {q.id}":
            update_task(ctx, task.id, TaskUpdate(status="in_progress"), by=q.role)
        ctx.event(
            conn,
            "question.answered",
            f"question:{q.id}",
            role=q.role,
            actor=by,
            detail={"answer": answer_text, **({"how": how} if how else {})},
        )
    return view(get_question(ctx, q.id))


def questions(ctx: DeskContext) -> list[JSON]:
    """Recent questions, newest first; an agent sees its own role's only."""
    own = ctx.settings.role
    return [view(q) for q in rows.list_questions(ctx.conn) if own in (None, q.role)]
