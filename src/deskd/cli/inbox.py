"""``deskd inbox enqueue|list|ack``, ``deskd send`` and ``deskd ledger``."""

from __future__ import annotations

import click

from deskd.cli import agent_commands
from deskd.cli.common import Number, emit_table, json_option, on_desk, runs
from deskd.cli.options import capability_option, priority_option, sla_option


@click.group()
def inbox() -> None:
    """Items addressed to a role: enqueue, list, ack.

    \b
    Examples:
      deskd inbox enqueue --for researcher --source alert --title "disk 91%" --priority high
      deskd inbox list --for researcher
      deskd inbox ack --for researcher --seen
    """


@inbox.command("enqueue")
@click.option("--for", "role", default=None, help="The role the item is for.")
@capability_option
@click.option("--source", required=True, help="One of the desk's inbox_sources (e.g. alert).")
@click.option("--title", required=True, help="One line saying what it is.")
@click.option("--body", default="", help="Details; line breaks are kept.")
@click.option("--ref", default=None, help="Where it lives (a URL, a file, a ticket).")
@priority_option
@click.option("--dedup-key", default=None, help="Coalesce with the unread item with this key.")
@sla_option
@json_option
@runs(agent_commands.inbox_enqueue)
def enqueue() -> None:
    """Add an item to a role's inbox (sources system, message, meeting, supervisor are deskd's).

    An unread item with the same role and --dedup-key absorbs this one (same id, priority
    raised if this one is higher); after it is acked, the key makes a new item.

    --capability NAME routes it to the enabled role declaring that capability that is most
    available: online or idle first, then the fewest open items and tasks, ties by name. The
    item records why. When no enabled role declares it, a person is paged ("unroutable: NAME").

    \b
    Examples:
      deskd inbox enqueue --for operator --source alert --title "5xx above 2%" --priority urgent
      deskd inbox enqueue --for operator --source alert --title "disk" --dedup-key disk-91 --json
      deskd inbox enqueue --capability triage --source alert --title "new bug report"
    """


@inbox.command("list")
@click.option("--for", "role", default=None, help="The role (default: DESKD_ROLE).")
@click.option("--all", "include_read", is_flag=True, help="Include read items (newest first).")
@click.option("--limit", default=200, show_default=True, type=Number(1, 10000))
@json_option
@runs(agent_commands.inbox_list)
def list_() -> None:
    """Unread items, urgent first. When a role lists its own inbox they count as seen.

    \b
    Examples:
      deskd inbox list --for researcher
      DESKD_ROLE=researcher deskd inbox list --json   # inside the role's session
    """


@inbox.command("ack")
@click.option("--for", "role", default=None, help="The role (default: DESKD_ROLE).")
@click.option("--id", "ids", multiple=True, help="Item id to mark read (repeat, or 3,4).")
@click.option("--seen", is_flag=True, help="Mark read exactly the items the role has been shown.")
@json_option
@runs(agent_commands.inbox_ack)
def ack() -> None:
    """Mark items read: the given ids, or exactly the ones the role was shown (--seen).

    \b
    Examples:
      deskd inbox ack --for researcher --id 12 --id 13
      deskd inbox ack --for researcher --seen
    """


@click.command()
@click.option("--from", "sender", default=None, help="The sending role (default: DESKD_ROLE).")
@click.option("--to", "to", multiple=True, required=True, help="A recipient role (repeat).")
@click.option("--subject", required=True, help="One line.")
@click.option("--body", required=True, help="The message; line breaks are kept.")
@priority_option
@sla_option
@json_option
@runs(agent_commands.send)
def send() -> None:
    """Send a message from one role to others: one item in each recipient's inbox.

    \b
    Examples:
      deskd send --from researcher --to operator --subject "root cause" --body "disk full on db-2"
      deskd send --from lead --to alpha --to beta --subject "standup" --body "10:00" --json
    """


@click.command()
@click.option("--for", "role", default=None, help="Only this role's items.")
@click.option("--state", default=None, help="queued, notified, read, escalated or overdue.")
@click.option("--limit", default=200, show_default=True, type=Number(1, 100000))
@json_option
def ledger(role: str | None, state: str | None, limit: int, as_json: bool) -> None:
    """The delivery ledger: every (item, recipient) with its derived state, newest first.

    \b
    Examples:
      deskd ledger --for operator
      deskd ledger --state overdue --json
    """
    from deskd.service.desk.inbox import ledger as ledger_view

    rows = on_desk(ledger_view, role=role, state=state, limit=limit)
    emit_table(
        rows,
        as_json,
        [
            (
                r["item_id"],
                r["to"],
                r["state"],
                r["priority"],
                r["queued_at"],
                r["sla_due_at"],
                r["title"],
            )
            for r in rows
        ],
        ["item", "to", "state", "priority", "queued", "sla due", "title"],
        empty="ledger empty",
    )
