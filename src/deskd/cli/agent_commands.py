"""The bodies of the agent-facing commands (and of the board and the tick).

Each function takes exactly the parameters its click command declares (``cli/inbox.py`` and
friends, through ``common.runs``). Output goes through ``deskd.cli.output``. Longer than
400 lines: the bodies moved here for a parser in front of click, since removed; they go back
beside their commands when the CLI is regrouped by feature.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import closing
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from deskd.cli.output import echo, emit, table
from deskd.ids import parse_ids

if TYPE_CHECKING:
    from collections.abc import Callable

    from deskd.service.desk.context import DeskContext

P = ParamSpec("P")
R = TypeVar("R")


def desk_context() -> closing[DeskContext]:
    """The DeskContext for this command, closed afterwards."""
    from deskd.service.desk.context import open_context

    return closing(open_context())


def on_desk(service: Callable[Concatenate[DeskContext, P], R], *args: P.args, **kw: P.kwargs) -> R:
    """``service(ctx, *args, **kw)`` on this command's DeskContext, closed afterwards."""
    with desk_context() as ctx:
        return service(ctx, *args, **kw)


def acting(ctx: DeskContext, flag: str, value: str | None) -> str:
    from deskd.service.desk.identity import acting_role

    return acting_role(ctx, flag, value)


# -- inbox ---------------------------------------------------------------------------------


def check_target(role: str | None, capability: str | None) -> None:
    """Exactly one of ``--for ROLE`` and ``--capability NAME``."""
    from deskd.errors import NoTarget, TargetConflict

    if role is not None and capability is not None:
        raise TargetConflict()
    if role is None and capability is None:
        raise NoTarget()


def routed_sentence(what: str, out: Mapping[str, Any]) -> str:
    """One line for a routed item or task (or the page that says it could not be routed)."""
    if out.get("unroutable"):
        return (
            f"unroutable: {out['unroutable']} — no enabled role has it; a person is paged "
            f"(help item {out['help_item_id'] if 'help_item_id' in out else out['id']}, "
            f"attempt {out['attempt_id']})"
        )
    verb = "coalesced into" if out.get("deduped") else "queued as"
    if what == "task":
        verb = "added as"
    return f"{verb} {what} {out['id']} for {out['role']} — {out['routed']}"


def inbox_enqueue(
    role: str | None,
    capability: str | None,
    source: str,
    title: str,
    body: str,
    ref: str | None,
    priority: str,
    dedup_key: str | None,
    sla: str | None,
    as_json: bool,
) -> None:
    from deskd.service.desk.inbox import NewItem
    from deskd.service.desk.inbox import enqueue as enqueue_item

    check_target(role, capability)
    with desk_context() as ctx:
        item = NewItem(
            role=role or "",
            source=source,
            title=title,
            body=body,
            ref=ref,
            priority=priority,
            dedup_key=dedup_key,
            sla=sla,
        )
        if capability is not None:
            from deskd.routing.service import enqueue_by_capability

            out = enqueue_by_capability(ctx, item, capability)
            emit(out, as_json, routed_sentence("item", out))
            return
        item_id, deduped = enqueue_item(ctx, item)
    verb = "coalesced into" if deduped else "queued as"
    emit({"id": item_id, "deduped": deduped}, as_json, f"{verb} item {item_id} for {role}")


def inbox_list(role: str | None, include_read: bool, limit: int, as_json: bool) -> None:
    from deskd.core.timeparse import local_text
    from deskd.service.desk.inbox import item_view, list_inbox

    with desk_context() as ctx:
        who = acting(ctx, "--for", role)
        rows = list_inbox(ctx, who, include_read=include_read, limit=limit)
        views = [item_view(r, now=ctx.now) for r in rows]
        full = [item_view(r, now=ctx.now, full=True) for r in rows]
        tz = ctx.tz

    def human() -> None:
        if not views:
            echo(f"{who}: inbox empty")
            return
        table(
            [
                (
                    v["id"],
                    v["priority"],
                    v["source"],
                    f["from"] or "",
                    v["state"],
                    local_text(r.enqueued_at, tz),
                    v["title"],
                )
                for v, f, r in zip(views, full, rows, strict=True)
            ],
            ["id", "priority", "source", "from", "state", "queued", "title"],
        )
        echo(f"\nack with: deskd inbox ack --for {who} --seen   (or --id N)")

    emit(views, as_json, human)


def inbox_ack(role: str | None, ids: tuple[str, ...], seen: bool, as_json: bool) -> None:
    from deskd.service.desk.inbox import ack as ack_items

    with desk_context() as ctx:
        who = acting(ctx, "--for", role)
        count = ack_items(
            ctx, who, ids=parse_ids(ids), seen=seen, by=ctx.settings.role or "operator"
        )
    emit({"acked": count}, as_json, f"acked {count} item{'s' if count != 1 else ''} for {who}")


def send(
    sender: str | None,
    to: tuple[str, ...],
    subject: str,
    body: str,
    priority: str,
    sla: str | None,
    as_json: bool,
) -> None:
    from deskd.service.desk.messages import send as send_message

    with desk_context() as ctx:
        who = acting(ctx, "--from", sender)
        message_id, items = send_message(
            ctx, sender=who, to=list(to), subject=subject, body=body, priority=priority, sla=sla
        )
    skipped = [who] if who in to else []
    data = {
        "message_id": message_id,
        "items": [{"id": i, "to": r} for i, r in items],
        "skipped": [{"to": r, "why": "the sender"} for r in skipped],
    }
    said = f"sent {message_id} to " + ", ".join(f"{r} (item {i})" for i, r in items)
    if skipped:
        said += f" — not to {who}: the sender"
    emit(data, as_json, said)


# -- presence ------------------------------------------------------------------------------


def presence_sentence(result: Mapping[str, Any]) -> str:
    session = f" (session {result['session_id']})" if result.get("session_id") else ""
    return f"{result['role']}: {result['presence']}{session}"


def status_set(
    role: str | None, state: str, activity: str | None, session_id: str | None, as_json: bool
) -> None:
    from deskd.service.desk.presence import set_status

    with desk_context() as ctx:
        who = acting(ctx, "--role", role)
        result = set_status(
            ctx,
            who,
            state=state,
            activity=activity,
            native_id=session_id or ctx.settings.session_id,
        )
    emit(result, as_json, presence_sentence(result))


def heartbeat(role: str | None, session_id: str | None, token: str | None, as_json: bool) -> None:
    from deskd.service.desk.presence import heartbeat as beat

    with desk_context() as ctx:
        who = acting(ctx, "--role", role)
        result = beat(
            ctx,
            who,
            native_id=session_id or ctx.settings.session_id,
            token=token or ctx.settings.wake_token,
        )
    emit(result, as_json, "heartbeat: " + presence_sentence(result))


def status_board(as_json: bool) -> None:
    from deskd.cli.board_text import print_board
    from deskd.service.ops.board import board

    with desk_context() as ctx:
        data = board(ctx)
        now, tz = ctx.now, ctx.tz
    emit(data, as_json, lambda: print_board(data, now=now, tz=tz))


MIN_LOOP_S = 10
"""``deskd tick --loop`` ticks at most this often (docs/cli.md): ``--loop 0`` ran ~35 ticks
a second, a busy loop on the database and the agents' machine."""


def tick(execute: bool, dry_run: bool, wait: bool, loop: str | None, as_json: bool) -> None:
    import time

    import click

    from deskd.core.timeparse import parse_duration

    if execute and dry_run:
        # One flag must not silently win over the other: which one was meant is unknowable.
        raise click.UsageError("--execute and --dry-run contradict each other: give one of them")
    mode = "execute" if execute else ("dry" if dry_run else None)
    every = parse_duration(loop, what="--loop") if loop is not None else None
    if every is not None and every < MIN_LOOP_S:
        from deskd.errors import InvalidValue

        raise InvalidValue(
            "--loop",
            loop,
            f"at least {MIN_LOOP_S}s: each tick reads the whole desk, and "
            "the planner's times are whole minutes (60s or 1m is the usual interval)",
        )
    while True:
        _tick_once(mode, as_json, wait)
        if every is None:
            return
        time.sleep(every)


def _tick_once(mode: str | None, as_json: bool, wait: bool) -> None:
    from deskd.service.engine.tick import run_tick

    with desk_context() as ctx:
        execute = mode == "execute" or (mode is None and ctx.settings.execute)
        result = run_tick(ctx, execute=execute)
        data = result.to_json()
        tz = ctx.tz
    procs = [(f"{d.role} (attempt {d.attempt_id})", d.proc) for d in result.dispatched if d.proc]
    if wait and procs:
        # On stderr, so a long wait is not mistaken for a hang and stdout's JSON stays clean.
        names = ", ".join(name for name, _ in procs)
        echo(f"deskd: waiting for the launches this tick started to end: {names}", err=True)
        for _, proc in procs:
            proc.wait()

    def human() -> None:
        from deskd.core.timeparse import local_text

        label = "dry-run" if result.dry_run else "execute"
        echo(f"tick {local_text(result.now, tz)} ({label})")
        if result.skipped:
            echo(f"  skipped: {result.skipped}")
            return
        for h in data["hooks_fired"]:
            if h["error"]:
                echo(f"  hook {h['hook_id']} ({h['owner']}): error: {h['error']}")
            elif h["would"]:
                echo(f"  hook {h['hook_id']} ({h['owner']}): would {h['would']}: {h['title']}")
            elif h["fire_at"]:
                missed = f" (+{h['missed']} missed, coalesced)" if h["missed"] else ""
                echo(f"  hook {h['hook_id']} ({h['owner']}) fired: {h['title']}{missed}")
        for c in data["resolved"]:
            echo(f"  close attempt {c['attempt_id']}: {c['outcome']} ({c['reason']})")
        for a in data["attempts"]:
            skip = f"  [skipped: {a['skipped']}]" if a["skipped"] else ""
            echo(f"  {a['role']}: {a['key']} → {a['rung']} — {a['detail']}{skip}")
        for x in data["actions"]:
            verb = "would launch" if result.dry_run else "launch planned"
            echo(f"  {verb}: {x['rung']} {x['role']} ({', '.join(x['reasons'])})")
        for d in data["launched"]:
            echo(f"  started executor for attempt {d['attempt_id']} ({d['role']}, pid {d['pid']})")
        for died in data["died"]:
            echo(f"  attempt {died}: its executor died; recorded as failed (transient)")
        for pg in data["pages"]:
            verb = "would page" if result.dry_run else "page queued"
            echo(f"  {verb}: {pg['title']}")
        for sent in data.get("pages_sent", []):  # the pager's sends (URLs already masked)
            where = ", ".join(f"{c['name']} {c['url']} {c['status']}" for c in sent["channels"])
            echo(f"  page {sent['page_id']} ({sent['kind']}, {sent['role']}): {where}")
        # One line per role and reason: a paused role has a note for each of its demands.
        for line in dict.fromkeys(f"  {n['role']}: {n['text']}" for n in data.get("notes", [])):
            echo(line)
        shown = ("resolved", "attempts", "actions", "pages", "hooks_fired", "pages_sent")
        if not any(data.get(key) for key in shown):
            echo("  nothing due")

    emit(data, as_json, human)


# -- tasks, meetings, wake hooks -----------------------------------------------------------


def task_update(
    task_id: int,
    status: str | None,
    blocked_on: str | None,
    priority: str | None,
    due: str | None,
    role: str | None,
    note: str | None,
    by: str | None,
    as_json: bool,
) -> None:
    from deskd.service.work.tasks import TaskUpdate, update_task

    change = TaskUpdate(
        status=status, blocked_on=blocked_on, priority=priority, due=due, role=role, note=note
    )
    out = on_desk(update_task, task_id, change, by=by)
    emit(out, as_json, task_said(out))


def task_said(out: Mapping[str, Any]) -> str:
    parts = [f"{k} → {v}" for k, v in out["changed"].items()]
    if out["note"]:
        parts.append("note added")
    return f"task {out['id']}: " + (", ".join(parts) or "unchanged")


def meeting_number(value: str) -> int:
    from deskd.service.meetings.views import parse_meeting_id

    return parse_meeting_id(value)


def meeting_send(
    meeting_id: str,
    role: str | None,
    body: str,
    kind: str,
    reply_to: str | None,
    resolves: tuple[str, ...],
    as_json: bool,
) -> None:
    from deskd.service.meetings.talk import send as do_send

    reply = parse_ids([reply_to], "--reply-to") if reply_to else []
    with desk_context() as ctx:
        said = do_send(
            ctx,
            meeting_number(meeting_id),
            acting(ctx, "--role", role),
            body,
            kind=kind,
            reply_to=reply[0] if reply else None,
            resolves=parse_ids(resolves, "--resolves"),
        )
    data = said.to_json()

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


def meeting_updates(meeting_id: str, role: str | None, mark_read: bool, as_json: bool) -> None:
    from deskd.service.meetings.talk import updates as do_updates

    with desk_context() as ctx:
        who = acting(ctx, "--role", role)
        data = do_updates(ctx, meeting_number(meeting_id), who, mark_read=mark_read)

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


def hook_add(
    owner: str | None,
    title: str,
    at: str | None,
    every: str | None,
    cron: str | None,
    tz: str | None,
    probe: str | None,
    timeout: str | None,
    body: str,
    priority: str,
    until: str | None,
    done_when: str | None,
    as_json: bool,
) -> None:
    from deskd.service.engine.hooks import HookRequest, add_hook

    with desk_context() as ctx:
        who = acting(ctx, "--for", owner)
        req = HookRequest(
            owner=who,
            title=title,
            body=body,
            priority=priority,
            at=at,
            every=every,
            cron=cron,
            tz=tz,
            probe=probe,
            timeout=timeout,
            until=until,
            done_when=done_when,
        )
        data = add_hook(ctx, req)
    emit(
        data,
        as_json,
        f"hook {data['id']} ({data['kind']}) for {who}: next fire {data['next_fire_at']}",
    )
