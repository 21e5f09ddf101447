"""What the supervisor does that no CLI command does: send items from the console, speak in
a meeting without attending it, and force a meeting closed.

The supervisor is a person, not a role (docs/architecture.md): it is never an attendee, never owes
a reply, and nothing it is owed launches an agent. Every action here is an event with the
actor ``supervisor``. The other console actions (wake ack, pause, silences, hooks, tasks) go
through the same services as the CLI, with ``DeskContext.actor`` set to ``supervisor``.
"""

from __future__ import annotations

from collections.abc import Sequence

from deskd.core.meetings import open_refusal, recipients_of, state_of
from deskd.core.values import SUPERVISOR
from deskd.errors import InvalidValue, MeetingRefused
from deskd.service.desk.context import DeskContext
from deskd.service.desk.inbox import NewItem
from deskd.service.desk.messages import deliver, known_recipients
from deskd.service.meetings.lifecycle import acting, close_meeting, event, sync_state
from deskd.service.meetings.talk import check_body, first_line, say
from deskd.store.dialect import Connection
from deskd.store.records import JSON


def send(
    ctx: DeskContext,
    *,
    to: Sequence[str],
    title: str,
    body: str = "",
    priority: str = "normal",
    sla: str | None = None,
) -> JSON:
    """One item (source ``supervisor``) per recipient, sharing a message id: the console's
    answer is that id and each recipient's item."""
    recipients = known_recipients(ctx, [r for r in to if r], "to", "name at least one role")
    message = NewItem("", SUPERVISOR, title, body, priority=priority, sla=sla, sender=SUPERVISOR)
    message_id, inserted = deliver(
        ctx,
        recipients,
        message,
        id_prefix="sup-",
        event="supervisor.sent",
        event_role=recipients[0] if len(recipients) == 1 else None,
        detail={"title": title},
    )
    created = [{"id": i, "to": name, "deduped": deduped} for i, name, deduped in inserted]
    return {"message_id": message_id, "items": created}


def meeting_post(ctx: DeskContext, meeting_id: int, body: str) -> JSON:
    """Speak in a meeting as the supervisor: an item for every attendee still in it, no budget
    spent and no reply obligation either way (the supervisor never attends)."""
    check_body(body, "body")
    now = ctx.now
    with acting(ctx, meeting_id, open_refusal) as (conn, facts):
        recipients = recipients_of(facts, SUPERVISOR)
        if not recipients:
            raise MeetingRefused(f"nobody is left in meeting {meeting_id}; close it instead")
        message_id = say(conn, facts, SUPERVISOR, "evidence", body, None, (), now=now)
        line = first_line(body)
        event(conn, meeting_id, "supervisor", None, f"the supervisor said: {line}", now=now)
        detail = {"message_id": message_id, "to": list(recipients)}
        _event(ctx, conn, "meeting.supervisor_said", meeting_id, detail)
        facts = sync_state(conn, meeting_id)
    return {"meeting_id": meeting_id, "message_id": message_id, "state": state_of(facts)}


def meeting_close(ctx: DeskContext, meeting_id: int, resolution: str) -> JSON:
    """Close a meeting now, whatever its phase: every debt is waived, its wakes withdrawn."""
    if not resolution.strip():
        raise InvalidValue("resolution", resolution, "say why it is closed")
    with acting(ctx, meeting_id, open_refusal) as (conn, facts):
        close_meeting(conn, facts, f"closed by the supervisor: {resolution}", now=ctx.now)
        _event(ctx, conn, "meeting.force_closed", meeting_id, {"resolution": resolution})
    return {"meeting_id": meeting_id, "state": "closed", "resolution": resolution}


def _event(ctx: DeskContext, conn: Connection, kind: str, meeting_id: int, detail: JSON) -> None:
    ctx.event(conn, kind, f"meeting:{meeting_id}", actor=SUPERVISOR, detail=detail)
