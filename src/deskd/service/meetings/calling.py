"""Calling a meeting (``deskd meeting call``): validate the call, open the meeting or return
the open one with the same agenda, and invite the attendees.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from deskd.core.meetings import (
    DEFAULT_CONSENSUS_AT,
    DEFAULT_IDLE_S,
    DEFAULT_MAX_MESSAGES,
    DEFAULT_REPLY_SLA_S,
    normalize_body,
    state_of,
)
from deskd.errors import InvalidValue
from deskd.service.desk.context import DeskContext
from deskd.service.desk.identity import known_role
from deskd.service.desk.inbox import check_length, positive_seconds
from deskd.service.meetings.facts import facts_of
from deskd.service.meetings.lifecycle import PRIORITIES, event, meeting_item, sync_state
from deskd.store import meetings as rows


class Call(NamedTuple):
    """A meeting to call, as given on the command line (validated by ``call_meeting``)."""

    caller: str
    agenda: str
    attendees: Sequence[str]
    priority: str = "normal"
    max_messages: int = DEFAULT_MAX_MESSAGES
    idle: str | int = DEFAULT_IDLE_S
    reply_sla: str | int = DEFAULT_REPLY_SLA_S
    consensus_at: int = DEFAULT_CONSENSUS_AT


def _validate_call(ctx: DeskContext, call: Call) -> tuple[list[str], int, int]:
    agenda = call.agenda.strip()
    if not agenda:
        raise InvalidValue("agenda", call.agenda, "must not be empty")
    check_length("agenda", agenda, 300)
    if call.priority not in PRIORITIES:
        raise InvalidValue("priority", call.priority, "a meeting is normal or urgent")
    invited = [a for a in dict.fromkeys(call.attendees) if a and a != call.caller]
    if not invited:
        raise InvalidValue(
            "--attendees",
            ",".join(call.attendees),
            "name the roles to invite (other than the caller), e.g. --attendees beta,gamma",
        )
    for name in invited:
        known_role(ctx, name)
    if call.max_messages < 1:
        raise InvalidValue("--max-messages", call.max_messages, "at least 1")
    if not 0 <= call.consensus_at < call.max_messages:
        raise InvalidValue(
            "--consensus-at",
            call.consensus_at,
            f"from 0 to {call.max_messages - 1} (below --max-messages)",
        )
    idle_s = positive_seconds(call.idle, "--idle")
    return invited, idle_s, positive_seconds(call.reply_sla, "--reply-sla")


def call_meeting(ctx: DeskContext, call: Call) -> tuple[int, str, bool]:
    """Open a meeting, or return the open (or paused) one with the same agenda.

    Returns (meeting id, state, existing). Every invited role but the caller (checked in at
    once) gets an invitation item and a ``meeting`` wake until it checks in.
    """
    invited, idle_s, reply_sla_s = _validate_call(ctx, call)
    key = normalize_body(call.agenda)
    now = ctx.now
    with ctx.write() as conn:
        meeting_id = rows.insert_meeting(
            conn,
            agenda=call.agenda.strip(),
            agenda_key=key,
            caller=call.caller,
            priority=call.priority,
            state="waiting",
            max_messages=call.max_messages,
            consensus_at=call.consensus_at,
            idle_s=idle_s,
            reply_sla_s=reply_sla_s,
            now=now,
        )
        if meeting_id is None:
            existing = rows.open_meeting_by_agenda(conn, key)
            assert existing is not None
            return int(existing.id), str(existing.state), True
        rows.insert_attendee(
            conn, meeting_id=meeting_id, role=call.caller, status="present", now=now
        )
        for role in invited:
            rows.insert_attendee(conn, meeting_id=meeting_id, role=role, status="invited", now=now)
        facts = facts_of(conn, meeting_id)
        for role in invited:
            meeting_item(
                conn,
                facts,
                to=role,
                sender=call.caller,
                title=f"{call.caller} invites you: {facts.meeting.agenda}",
                body=(
                    f"Attendees: {call.caller} (caller), {', '.join(invited)}.\n"
                    f"Check in: deskd meeting check-in {meeting_id} --role {role}\n"
                    f'Cannot attend: deskd meeting leave {meeting_id} --role {role} --reason "…"'
                ),
                key="invite",
                now=now,
            )
        event(
            conn,
            meeting_id,
            "called",
            call.caller,
            f"{call.caller} called it; invited {', '.join(invited)}",
            now=now,
        )
        state = state_of(sync_state(conn, meeting_id))
    return meeting_id, state, False
