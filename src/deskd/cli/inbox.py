"""``deskd inbox enqueue|list|ack``, ``deskd send`` and ``deskd ledger``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from deskd.cli.common import Command, Group, Number, acting, desk_context, on_desk
from deskd.cli.options import capability_option, priority_option, sla_option
from deskd.cli.output import cells, echo, emit, emit_table, table
from deskd.core.timeparse import local_text
from deskd.errors import NoTarget, TargetConflict
from deskd.ids import parse_ids
from deskd.service.desk.inbox import NewItem, item_view, list_inbox
from deskd.service.desk.inbox import ack as ack_items
from deskd.service.desk.inbox import enqueue as enqueue_item
from deskd.service.desk.inbox import ledger as ledger_view
from deskd.service.desk.messages import send as send_message


@click.group(cls=Group)
def inbox() -> None:
    """Items addressed to a role: enqueue, list, ack.

    Examples:
      deskd inbox enqueue --for researcher --source alert --title "disk 91%" --priority high
      deskd inbox list --for researcher
      deskd inbox ack --for researcher --seen
    """


@inbox.command("enqueue")
@click.option("--for", "role", help="The role the item is for.")
@capability_option
@click.option("--source", required=True, help="One of the desk's inbox_sources (e.g. alert).")
@click.option("--title", required=True, help="One line saying what it is.")
@click.option("--body", default="", help="Details; line breaks are kept.")
@click.option("--ref", help="Where it lives (a URL, a file, a ticket).")
@priority_option
@click.option("--dedup-key", help="Coalesce with the unread item with this key.")
@sla_option
def enqueue(role: str | None, capability: str | None, as_json: bool, **item: Any) -> None:
    """Add an item to a role's inbox (sources system, message, meeting, supervisor are deskd's).

    An unread item with the same role and --dedup-key absorbs this one (same id, priority
    raised if this one is higher); after it is acked, the key makes a new item.

    --capability NAME routes it to the enabled role declaring that capability that is most
    available: online or idle first, then the fewest open items and tasks, ties by name. The
    item records why. When no enabled role declares it, a person is paged ("unroutable: NAME").

    Examples:
      deskd inbox enqueue --for operator --source alert --title "5xx above 2%" --priority urgent
      deskd inbox enqueue --for operator --source alert --title "disk" --dedup-key disk-91 --json
      deskd inbox enqueue --capability triage --source alert --title "new bug report"
    """
    check_target(role, capability)
    with desk_context() as ctx:
        if capability is not None:
            from deskd.routing.service import enqueue_by_capability  # not on the hot path

            out = enqueue_by_capability(ctx, NewItem(role="", **item), capability)
            emit(out, as_json, routed_sentence("item", out))
            return
        item_id, deduped = enqueue_item(ctx, NewItem(role=role or "", **item))
    verb = "coalesced into" if deduped else "queued as"
    emit({"id": item_id, "deduped": deduped}, as_json, f"{verb} item {item_id} for {role}")


def check_target(role: str | None, capability: str | None) -> None:
    """Exactly one of ``--for ROLE`` and ``--capability NAME``."""
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


@inbox.command("list")
@click.option("--for", "role", help="The role (default: DESKD_ROLE).")
@click.option("--all", "include_read", is_flag=True, help="Include read items (newest first).")
@click.option("--limit", default=200, show_default=True, type=Number(1, 10000))
def list_(role: str | None, include_read: bool, limit: int, as_json: bool) -> None:
    """Unread items, urgent first. When a role lists its own inbox they count as seen.

    Examples:
      deskd inbox list --for researcher
      DESKD_ROLE=researcher deskd inbox list --json   # inside the role's session
    """
    with desk_context() as ctx:
        who = acting(ctx, "--for", role)
        rows = list_inbox(ctx, who, include_read=include_read, limit=limit)
        views = [item_view(r, now=ctx.now) for r in rows]

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
                    r.sender or "",
                    v["state"],
                    local_text(r.enqueued_at, ctx.tz),
                    v["title"],
                )
                for v, r in zip(views, rows, strict=True)
            ],
            ["id", "priority", "source", "from", "state", "queued", "title"],
        )
        echo(f"\nack with: deskd inbox ack --for {who} --seen   (or --id N)")

    emit(views, as_json, human)


@inbox.command("ack")
@click.option("--for", "role", help="The role (default: DESKD_ROLE).")
@click.option("--id", "ids", multiple=True, help="Item id to mark read (repeat, or 3,4).")
@click.option("--seen", is_flag=True, help="Mark read exactly the items the role has been shown.")
def ack(role: str | None, ids: tuple[str, ...], seen: bool, as_json: bool) -> None:
    """Mark items read: the given ids, or exactly the ones the role was shown (--seen).

    Examples:
      deskd inbox ack --for researcher --id 12 --id 13
      deskd inbox ack --for researcher --seen
    """
    with desk_context() as ctx:
        who = acting(ctx, "--for", role)
        by = ctx.settings.role or "operator"
        count = ack_items(ctx, who, ids=parse_ids(ids), seen=seen, by=by)
    emit({"acked": count}, as_json, f"acked {count} item{'s' if count != 1 else ''} for {who}")


@click.command(cls=Command)
@click.option("--from", "sender", help="The sending role (default: DESKD_ROLE).")
@click.option("--to", multiple=True, required=True, help="A recipient role (repeat).")
@click.option("--subject", required=True, help="One line.")
@click.option("--body", required=True, help="The message; line breaks are kept.")
@priority_option
@sla_option
def send(sender: str | None, to: tuple[str, ...], as_json: bool, **message: Any) -> None:
    """Send a message from one role to others: one item in each recipient's inbox.

    Examples:
      deskd send --from researcher --to operator --subject "root cause" --body "disk full on db-2"
      deskd send --from lead --to alpha --to beta --subject "standup" --body "10:00" --json
    """
    with desk_context() as ctx:
        who = acting(ctx, "--from", sender)
        message_id, items = send_message(ctx, sender=who, to=list(to), **message)
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


@click.command(cls=Command)
@click.option("--for", "role", help="Only this role's items.")
@click.option("--state", help="queued, notified, read, escalated or overdue.")
@click.option("--limit", default=200, show_default=True, type=Number(1, 100000))
def ledger(role: str | None, state: str | None, limit: int, as_json: bool) -> None:
    """The delivery ledger: every (item, recipient) with its derived state, newest first.

    Examples:
      deskd ledger --for operator
      deskd ledger --state overdue --json
    """
    rows = on_desk(ledger_view, role=role, state=state, limit=limit)
    emit_table(
        rows,
        as_json,
        cells(rows, "item_id to state priority queued_at sla_due_at title"),
        ["item", "to", "state", "priority", "queued", "sla due", "title"],
        empty="ledger empty",
    )
