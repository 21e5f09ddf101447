"""``deskd meeting …``: bounded meetings between roles (call, check in, speak, end): one
click group with a thin command per meeting verb, each over service/meetings/."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import click

from deskd.cli.common import Group, Number, acting, desk_context
from deskd.cli.options import params
from deskd.cli.output import cells, echo, emit, emit_table, table
from deskd.core.timeparse import local_text, parse_instant
from deskd.ids import parse_ids
from deskd.service.meetings import end, lifecycle, talk
from deskd.service.meetings.lifecycle import Call, call_meeting
from deskd.service.meetings.views import meeting_list, meeting_status, parse_meeting_id


@click.group(cls=Group)
def meeting() -> None:
    """Bounded meetings: quorum, owed replies, a message budget, consensus, an idle deadline
    and a mutual end handshake. Every action is for the calling role only.

    Examples:
      deskd meeting call --by alpha --agenda "schema v3" --attendees beta,gamma
      deskd meeting check-in 1 --role beta
      deskd meeting send 1 --role beta --body "I prefer option B" --kind proposal
      deskd meeting status 1
    """


def _attendee(
    name: str, *options: Callable[[Any], Any]
) -> Callable[[Callable[..., None]], click.Command]:
    """``deskd meeting NAME M [--role R] [OPTIONS] [--json]``: one attendee's command."""
    role_help = "The role acting (default: DESKD_ROLE; an agent may act only as itself)."
    declared = params(
        click.argument("meeting_id", metavar="M"),
        click.option("--role", help=role_help),
        *options,
    )
    return lambda fn: meeting.command(name)(declared(fn))


def _act(
    do: Callable[..., Mapping[str, Any]],
    meeting_id: str,
    role: str | None,
    as_json: bool,
    *args: str,
) -> None:
    """Run one attendee's action on the meeting and say what it now waits on."""
    with desk_context() as ctx:
        data = do(ctx, parse_meeting_id(meeting_id), acting(ctx, "--role", role), *args)

    def human() -> None:
        click.echo(f"meeting {data['meeting_id']}: {data['state']}")
        for w in data.get("waiting_on", []):
            click.echo(f"  waiting on {w['role']}: {w['why']}")

    emit(data, as_json, human)


@meeting.command("call")
@click.option("--by", help="The calling role (default: DESKD_ROLE).")
@click.option("--agenda", required=True, help="What the meeting decides (one line).")
@click.option(
    "--attendees",
    multiple=True,
    required=True,
    help="Roles to invite: a,b (or repeat). Required: nobody is invited by default.",
)
@click.option("--priority", default="normal", show_default=True, help="normal or urgent.")
@click.option(
    "--max-messages", default=20, show_default=True, type=Number(1), help="Message budget."
)
@click.option("--idle", default="60m", show_default=True, help="Idle deadline: pauses it.")
@click.option("--reply-sla", default="10m", show_default=True, help="Owed replies and check-ins.")
@click.option(
    "--consensus-at", default=4, show_default=True, type=Number(0), help="Budget left at consensus."
)
def call(by: str | None, attendees: tuple[str, ...], as_json: bool, **call: Any) -> None:
    """Call a meeting; calling an agenda that is already open (or paused) returns that one.

    Each attendee gets an invitation item and a wake until it checks in; the meeting waits
    until every one has. An urgent meeting's items skip the inbox batch.

    Examples:
      deskd meeting call --by alpha --agenda "rollback or fix forward?" --attendees beta
      deskd meeting call --by alpha --agenda "incident 42" --attendees beta,gamma \\
          --priority urgent --max-messages 12 --reply-sla 5m --json
    """
    names = [n.strip() for value in attendees for n in value.split(",") if n.strip()]
    with desk_context() as ctx:
        caller = acting(ctx, "--by", by)
        meeting_id, state, existing = call_meeting(ctx, Call(caller, attendees=names, **call))
    data = {"meeting_id": meeting_id, "state": state, "existing": existing}
    verb = "already open as" if existing else "called"
    emit(data, as_json, f"{verb} meeting {meeting_id} ({state})")


@_attendee("check-in")
def check_in(meeting_id: str, role: str | None, as_json: bool) -> None:
    """Check in to a meeting you were invited to (the meeting starts when all have).

    Examples:
      deskd meeting check-in 3 --role beta
      DESKD_ROLE=beta deskd meeting check-in 3 --json
    """
    _act(lifecycle.check_in, meeting_id, role, as_json)


@_attendee(
    "send",
    click.option("--body", required=True, help="What you say; line breaks are kept."),
    click.option(
        "--kind",
        default="evidence",
        show_default=True,
        help="evidence, question, answer, proposal or decision.",
    ),
    click.option("--reply-to", help="The message this answers."),
    click.option("--resolves", multiple=True, help="Messages this answers (repeat, or 4,5)."),
)
def send(
    meeting_id: str,
    role: str | None,
    body: str,
    kind: str,
    reply_to: str | None,
    resolves: tuple[str, ...],
    as_json: bool,
) -> None:
    """Say something to everyone in the meeting (spends one message of the budget).

    With exactly two attendees checked in, the other then owes you a reply; --reply-to
    (one) or --resolves (several) settles what you owe. Answering with a question still
    leaves a reply owed to you. A duplicate (same body, case and spacing aside) is refused
    with the original message id.

    Examples:
      deskd meeting send 3 --role beta --body "p95 doubled after deploy 118" --kind evidence
      deskd meeting send 3 --role alpha --body "Roll back." --kind answer --reply-to 4
      deskd meeting send 3 --role alpha --body "Both fixed in 119" --resolves 4,5 --json
    """
    reply = parse_ids([reply_to], "--reply-to") if reply_to else []
    with desk_context() as ctx:
        data = talk.send(
            ctx,
            parse_meeting_id(meeting_id),
            acting(ctx, "--role", role),
            body,
            kind=kind,
            reply_to=reply[0] if reply else None,
            resolves=parse_ids(resolves, "--resolves"),
        )

    def human() -> None:
        echo(
            f"sent message {data['message_id']} in meeting {data['meeting_id']} "
            f"({data['state']}, {data['budget_left']} left)"
        )
        if data["settled"]:
            echo(f"  settled: {', '.join(map(str, data['settled']))}")
        if data["reply_owed_by"]:
            echo(f"  {data['reply_owed_by']} owes you a reply")
        if data["warning"]:
            echo(f"  warning: {data['warning']}")

    emit(data, as_json, human)


@_attendee(
    "updates",
    click.option("--mark-read", is_flag=True, help="Mark these messages and events read."),
)
def updates(meeting_id: str, role: str | None, mark_read: bool, as_json: bool) -> None:
    """Your unread messages of the meeting and what happened since you last marked read.

    Reading is not a vote and pays no debt.

    Examples:
      deskd meeting updates 3 --role beta
      deskd meeting updates 3 --role beta --mark-read --json
    """
    with desk_context() as ctx:
        who = acting(ctx, "--role", role)
        data = talk.updates(ctx, parse_meeting_id(meeting_id), who, mark_read=mark_read)

    def human() -> None:
        echo(f"meeting {data['meeting_id']}: {data['state']}, {data['budget_left']} left")
        for e in data["events"]:
            echo(f"  {e['at']}  {e['text']}")
        for m in data["messages"]:
            echo(f"\n#{m['message_id'] or '-'} from {m['from']}: {m['title']}")
            if m["body"]:
                echo("  " + m["body"].replace("\n", "\n  "))
        for o in data["owed_by_you"]:
            echo(f"\nyou owe {o['creditor']} a reply to message {o['message_id']}")
        if data["vote_owed"]:
            echo("\nyour vote on ending it is owed (confirm-end / reject-end)")

    emit(data, as_json, human)


@_attendee(
    "position", click.option("--body", required=True, help="Your position, once, in consensus.")
)
def position(meeting_id: str, role: str | None, body: str, as_json: bool) -> None:
    """State your one position in the consensus phase (never spends the budget).

    Examples:
      deskd meeting position 3 --role gamma --body "Roll back now, fix in 119."
    """
    with desk_context() as ctx:
        data = talk.position(ctx, parse_meeting_id(meeting_id), acting(ctx, "--role", role), body)
    emit(data, as_json, f"position recorded as message {data['message_id']} ({data['state']})")


@_attendee("propose-end", click.option("--resolution", required=True, help="What was decided."))
def propose_end(meeting_id: str, role: str | None, resolution: str, as_json: bool) -> None:
    """Propose to end the meeting (you confirm automatically; the others vote).

    Examples:
      deskd meeting propose-end 3 --role alpha --resolution "Roll back 118; beta owns the fix"
    """
    _act(end.propose_end, meeting_id, role, as_json, resolution)


@_attendee("confirm-end")
def confirm_end(meeting_id: str, role: str | None, as_json: bool) -> None:
    """Confirm the open proposal to end (the last confirmation closes the meeting).

    Examples:
      deskd meeting confirm-end 3 --role beta
    """
    _act(end.confirm_end, meeting_id, role, as_json)


@_attendee(
    "reject-end", click.option("--reason", required=True, help="Why the meeting should go on.")
)
def reject_end(meeting_id: str, role: str | None, reason: str, as_json: bool) -> None:
    """Reject the open proposal to end; the proposer is woken and told why.

    Examples:
      deskd meeting reject-end 3 --role gamma --reason "nobody owns the fix yet"
    """
    _act(end.reject_end, meeting_id, role, as_json, reason)


@_attendee("leave", click.option("--reason", required=True, help="Why you leave (or decline)."))
def leave(meeting_id: str, role: str | None, reason: str, as_json: bool) -> None:
    """Leave the meeting (or decline the invitation): your debts are waived and the end vote
    is counted without you.

    Examples:
      deskd meeting leave 3 --role gamma --reason "not my area"
    """
    _act(lifecycle.leave, meeting_id, role, as_json, reason)


@_attendee("pause", click.option("--reason", required=True, help="Why it pauses."))
def pause(meeting_id: str, role: str | None, reason: str, as_json: bool) -> None:
    """Pause the meeting: its wakes are withdrawn on the next tick until someone resumes it.

    Examples:
      deskd meeting pause 3 --role alpha --reason "waiting for the load test"
    """
    _act(lifecycle.pause, meeting_id, role, as_json, reason)


@_attendee("resume")
def resume(meeting_id: str, role: str | None, as_json: bool) -> None:
    """Resume a meeting paused for idleness or by an attendee (a spent budget only ends).

    Examples:
      deskd meeting resume 3 --role beta
    """
    _act(lifecycle.resume, meeting_id, role, as_json)


@meeting.command("status")
@click.argument("meeting_id", metavar="M")
def status(meeting_id: str, as_json: bool) -> None:
    """One meeting: its state, attendees, who it waits on and why, debts and budget.

    Examples:
      deskd meeting status 3
      deskd meeting status 3 --json
    """
    with desk_context() as ctx:
        data = meeting_status(ctx.conn, parse_meeting_id(meeting_id), now=ctx.now)

    def when(iso: str | None) -> str:
        return local_text(parse_instant(iso, tz="UTC"), ctx.tz) if iso else "-"

    def human() -> None:
        click.echo(f"meeting {data['meeting_id']}: {data['agenda']}")
        click.echo(
            f"  state {data['state']}, called by {data['caller']} at {when(data['called_at'])}, "
            f"{data['budget_left']} of {data['max_messages']} messages left "
            f"(consensus at {data['consensus_at']})"
        )
        if data["paused"]:
            click.echo(f"  paused ({data['paused']['kind']}): {data['paused']['reason']}")
        if data["proposal"]:
            p = data["proposal"]
            click.echo(
                f"  end proposed by {p['proposer']}: {p['resolution']} "
                f"(confirmed: {', '.join(p['confirmed'])})"
            )
        if data["resolution"]:
            click.echo(f"  closed {when(data['closed_at'])}: {data['resolution']}")
        click.echo("")
        table(
            [(a["role"], a["status"], when(a["checked_in_at"])) for a in data["attendees"]],
            ["attendee", "status", "checked in"],
        )
        if data["waiting_on"]:
            click.echo("")
            table([(w["role"], w["why"]) for w in data["waiting_on"]], ["waiting on", "why"])
        elif data["state"] != "closed":
            click.echo("\nwaiting on nobody")

    emit(data, as_json, human)


@meeting.command("list")
@click.option("--all", "include_closed", is_flag=True, help="Include closed meetings.")
@click.option("--role", help="Only meetings this role attends.")
def list_(include_closed: bool, role: str | None, as_json: bool) -> None:
    """Open meetings (newest first), with their state and who they wait on.

    Examples:
      deskd meeting list
      deskd meeting list --all --json
      deskd meeting list --role beta
    """
    with desk_context() as ctx:
        if role is not None:
            ctx.desk.role(role)
        data = meeting_list(ctx.conn, include_closed=include_closed, role=role, now=ctx.now)
    emit_table(
        data,
        as_json,
        cells(data, "meeting_id state caller attendees waiting_on budget_left agenda", missing="-"),
        ["id", "state", "caller", "attendees", "waiting on", "left", "agenda"],
        empty="no meetings" if include_closed else "no open meetings",
    )
