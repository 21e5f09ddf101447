"""Help requests and questions: an agent asks a person for help (`deskd page --from R`) or for
a decision it waits on (`deskd ask`), and a person answers (`deskd answer`).

A help request is an item in the role's own ledger, marked as one; the ``help:<item>`` demand
it raises starts at ``notify`` (it is owed by a person) and resolves when the item is acked —
by the role (`deskd inbox ack`) or by a person (`deskd wake ack` on its attempt). The item, its
marker, and the planner's decision for that one key are written in ONE transaction — the plan
is computed on a snapshot read inside it, and only the help key's attempt and page are
recorded (other keys are the tick's business: no launches, no closures). The page then goes
out at once, outside the transaction, so the caller gets an attempt id and a person hears of
it without waiting for the next tick.

A question pages like a help request (it IS one: routing, quiet hours, silences, climbing),
recorded with it in one transaction, and blocks the role's current task (``blocked on
question N``). An answer — by a page's link, the console or `deskd answer` — is recorded once
(compare-and-set), answers the help request, unblocks the task and lands in the role's inbox
as an urgent item from the person, which wakes the role: its session is resumed with the
answer in the prompt. A question nobody answers by ``expires_at`` goes back to the agent the
same way, as "no answer" (``expire_questions``, on every executing tick).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, NotRequired, TypedDict, Unpack

from deskd.core.planner import plan as make_plan
from deskd.core.records import Plan
from deskd.core.values import DEFAULT_SLA_S, priority_rank
from deskd.errors import InvalidValue, PeopleCommand, QuestionAnswered, UnknownQuestion
from deskd.routing.store import mark_item_routed
from deskd.service.desk.context import DeskContext
from deskd.service.desk.identity import acting_role, known_role
from deskd.service.desk.inbox import validate_text
from deskd.service.engine.record import record_plan
from deskd.service.engine.snapshot import load_snapshot, policy_of
from deskd.service.paging.pager import PageReport, deliver_pages
from deskd.service.work.tasks import TaskUpdate, update_task
from deskd.store import questions as rows
from deskd.store.items import ack_items, insert_item
from deskd.store.questions import insert_help_request, options_of
from deskd.store.records import JSON, shown
from deskd.store.records.work import Question
from deskd.store.tasks import get_task, list_tasks

if TYPE_CHECKING:
    from deskd.store.dialect import Connection


class HelpRaised(TypedDict):
    """`deskd page --json`: the help request's item and key, its attempt (None when the
    planner only noted it), and the pages sent at once."""

    attempt_id: int | None
    item_id: int
    key: str
    page_ids: list[int]
    pages_sent: list[PageReport]
    note: str | None


def ask_for_help(ctx: DeskContext, *, role: str | None, title: str, body: str) -> HelpRaised:
    """Record a help request for ``role`` and page a person; returns its ids and what was sent."""
    name = acting_role(ctx, "--from", role)
    known_role(ctx, name)
    validate_text(title, body)
    return raise_help(ctx, role=name, title=title, body=body, actor=name)


class HelpFields(TypedDict):
    """A help request: ``role``'s ledger holds it; ``capability`` marks work that no enabled
    role could take (routing/service.py), which the page says instead, at the work's
    own ``priority`` (default high); ``held_work`` is that work (JSON), routed once a role can."""

    role: str
    title: str
    body: str
    actor: str
    capability: NotRequired[str | None]
    priority: NotRequired[str]
    held_work: NotRequired[str | None]


def raise_help(
    ctx: DeskContext,
    *,
    on_item: Callable[[Connection, int], None] | None = None,
    **fields: Unpack[HelpFields],
) -> HelpRaised:
    """The help request itself, planned and paged at once; ``on_item(conn, item_id)`` records
    what rides on the request (a question) in its transaction, before the page is composed."""
    with ctx.write() as conn:
        item_id = insert_help(conn, ctx, **fields)
        if on_item is not None:
            on_item(conn, item_id)
        key = f"help:{item_id}"
        full = make_plan(
            load_snapshot(conn, ctx.desk, now=ctx.now), now=ctx.now, policy=policy_of(ctx.desk)
        )
        only = Plan(
            now=full.now,
            demands=tuple(d for d in full.demands if d.key == key),
            attempts=tuple(a for a in full.attempts if a.key == key),
            pages=tuple(p for p in full.pages if p.key == key and p.notice_key is None),
        )
        ids, page_ids = record_plan(conn, only, now=ctx.now)
    sent = deliver_pages(ctx, only=page_ids) if page_ids else []
    note = next((n.text for n in full.notes if n.key == key), None)
    return {
        "attempt_id": ids.get(key),
        "item_id": item_id,
        "key": key,
        "page_ids": page_ids,
        "pages_sent": sent,
        "note": note,
    }


def insert_help(conn: Connection, ctx: DeskContext, **fields: Unpack[HelpFields]) -> int:
    """The help request's item and marker (``raise_help``'s, and a task whose check failed
    ``reopen_after`` times); the next plan pages a person. Returns the item's id."""
    role, title, capability = fields["role"], fields["title"], fields.get("capability")
    item_id, _ = insert_item(
        conn,
        role=role,
        source="system",
        priority=priority_rank(fields.get("priority", "high")),
        title=title,
        body=fields["body"],
        ref="help",
        dedup_key=None,
        now=ctx.now,
        sla_due_at=ctx.now + DEFAULT_SLA_S["urgent"] * 1000,
        sender=role if capability is None else None,
    )
    held_work = fields.get("held_work")
    insert_help_request(conn, item_id=item_id, role=role, now=ctx.now, held_work=held_work)
    if capability is not None:
        mark_item_routed(conn, item_id, capability=capability, why=f"unroutable: {capability}")
    detail = {"title": title, **({"unroutable": capability} if capability else {})}
    ctx.event(
        conn, "help.requested", f"item:{item_id}", role=role, actor=fields["actor"], detail=detail
    )
    return item_id


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
        detail = {"answer": answer_text, **({"how": how} if how else {})}
        ctx.event(
            conn, "question.answered", f"question:{q.id}", role=q.role, actor=by, detail=detail
        )
    return view(get_question(ctx, q.id))


def questions(ctx: DeskContext) -> list[JSON]:
    """Recent questions, newest first; an agent sees its own role's only."""
    own = ctx.settings.role
    return [view(q) for q in rows.list_questions(ctx.conn) if own in (None, q.role)]
