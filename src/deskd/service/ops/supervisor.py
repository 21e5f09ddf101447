"""What the supervisor does that no CLI command does: send items from the console, speak in
a meeting without attending it, and force a meeting closed.

The supervisor is a person, not a role (docs/architecture.md): it is never an attendee, never owes
a reply, and nothing it is owed launches an agent. Every action here is an event with the
actor ``supervisor``. The other console actions (wake ack, pause, silences, hooks, tasks) go
through the same services as the CLI, with ``DeskContext.actor`` set to ``supervisor``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from deskd.core.meetings import normalize_body, open_refusal, recipients_of, state_of
from deskd.core.values import SUPERVISOR
from deskd.errors import DuplicateMessage, InvalidValue, MeetingRefused
from deskd.service.desk.context import DeskContext
from deskd.service.desk.identity import known_role
from deskd.service.desk.inbox import MAX_BODY
from deskd.service.desk.messages import deliver
from deskd.service.meetings.lifecycle import (
    close_meeting,
    event,
    load,
    meeting_items,
    refuse,
    sync_state,
)
from deskd.store import meeting_messages as msg_rows
from deskd.store import meetings as meeting_rows
from deskd.store.events import add_event


class SentItem(TypedDict):
    id: int
    to: str
    deduped: bool


class Sent(TypedDict):
    """What the console's send answers: the shared message id and each recipient's item."""

    message_id: str
    items: list[SentItem]


class SupervisorSaid(TypedDict):
    meeting_id: int
    message_id: int
    state: str


class ForceClosed(TypedDict):
    meeting_id: int
    state: str
    resolution: str


def send(
    ctx: DeskContext,
    *,
    to: Sequence[str],
    title: str,
    body: str = "",
    priority: str = "normal",
    sla: str | None = None,
) -> Sent:
    """One item (source ``supervisor``) per recipient, sharing a message id."""
    recipients = list(dict.fromkeys(r for r in to if r))
    if not recipients:
        raise InvalidValue("to", "", "name at least one role")
    for name in recipients:
        known_role(ctx, name)
    message_id, inserted = deliver(
        ctx,
        recipients,
        id_prefix="sup-",
        source=SUPERVISOR,
        sender=SUPERVISOR,
        title=title,
        body=body,
        priority=priority,
        sla=sla,
        event="supervisor.sent",
        event_role=recipients[0] if len(recipients) == 1 else None,
        detail={"title": title},
    )
    created: list[SentItem] = [
        {"id": i, "to": name, "deduped": deduped} for i, name, deduped in inserted
    ]
    return {"message_id": message_id, "items": created}


def meeting_post(ctx: DeskContext, meeting_id: int, body: str) -> SupervisorSaid:
    """Speak in a meeting as the supervisor: an item for every attendee still in it.

    It spends none of the budget (the budget bounds the attendees' talk, not a person's
    steering) and creates no reply obligation either way: the supervisor never attends."""
    if not body.strip():
        raise InvalidValue("body", body, "must not be empty")
    if len(body) > MAX_BODY:
        raise InvalidValue("body", body[:40] + "…", f"at most {MAX_BODY} characters")
    now = ctx.now
    with ctx.write() as conn:
        facts = load(conn, meeting_id, now=now)
        refuse(open_refusal(facts))
        recipients = recipients_of(facts, SUPERVISOR)
        if not recipients:
            raise MeetingRefused(f"nobody is left in meeting {meeting_id}; close it instead")
        message_id = msg_rows.insert_message(
            conn,
            meeting_id=meeting_id,
            sender=SUPERVISOR,
            kind="evidence",
            body=body,
            body_key=normalize_body(body),
            recipients=recipients,
            reply_to=None,
            resolves=[],
            spent=False,
            now=now,
        )
        if message_id is None:
            original = msg_rows.duplicate_of(
                conn,
                meeting_id=meeting_id,
                sender=SUPERVISOR,
                recipients=recipients,
                body_key=normalize_body(body),
            )
            raise DuplicateMessage(meeting_id, original or 0)
        meeting_rows.touch(conn, meeting_id, now=now)
        first = body.strip().splitlines()[0]
        title = f"supervisor: {first}"
        meeting_items(
            conn, facts, recipients, SUPERVISOR, title, body, key=str(message_id), now=now
        )
        event(conn, meeting_id, "supervisor", None, f"the supervisor said: {first}", now=now)
        add_event(
            conn,
            at=now,
            kind="meeting.supervisor_said",
            actor=SUPERVISOR,
            subject=f"meeting:{meeting_id}",
            detail={"message_id": message_id, "to": list(recipients)},
        )
        facts = sync_state(conn, meeting_id)
    return {"meeting_id": meeting_id, "message_id": message_id, "state": state_of(facts)}


def meeting_close(ctx: DeskContext, meeting_id: int, resolution: str) -> ForceClosed:
    """Close a meeting now, whatever its phase: every debt is waived, its wakes withdrawn."""
    if not resolution.strip():
        raise InvalidValue("resolution", resolution, "say why it is closed")
    with ctx.write() as conn:
        facts = load(conn, meeting_id, now=ctx.now)
        refuse(open_refusal(facts))
        close_meeting(conn, facts, f"closed by the supervisor: {resolution}", now=ctx.now)
        ctx.event(
            conn,
            "meeting.force_closed",
            f"meeting:{meeting_id}",
            actor=SUPERVISOR,
            detail={"resolution": resolution},
        )
    return {"meeting_id": meeting_id, "state": "closed", "resolution": resolution}
