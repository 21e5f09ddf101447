"""``deskd hook add|list|next|cancel``: wake hooks an agent registers for itself."""

from __future__ import annotations

from typing import Any

import click

from deskd.cli.common import ID, Group, Number, acting, desk_context, on_desk
from deskd.cli.options import priority_option
from deskd.cli.output import cells, emit, emit_table
from deskd.service.engine.hooks import HookRequest, add_hook, cancel_hook, list_hooks, next_fires


@click.group(cls=Group)
def hook() -> None:
    """Wake hooks: wake a role at a time, on an interval, on a cron schedule, or when a
    probe function finds something. A fire puts an item in the owner's inbox.

    Examples:
      deskd hook add --for researcher --title "daily digest" --cron "0 9 * * MON-FRI"
      deskd hook add --for researcher --title "check the deploy" --at 2026-12-01T15:30
      deskd hook add --for operator --title "disk" --probe myapp.watchers:disk_full --every 5m
      deskd hook list --for researcher
      deskd hook next 3 --count 5
    """


@hook.command("add")
@click.option("--for", "owner", help="The role it wakes (default: DESKD_ROLE).")
@click.option("--title", required=True, help="What the fire means; the item's title.")
@click.option("--at", help="Once, at this time (ISO 8601; naive = desk timezone).")
@click.option("--every", help="Every DUR (at least 60s); with --probe, how often.")
@click.option("--cron", help="5-field cron expression, e.g. '0 9 * * MON-FRI'.")
@click.option("--tz", help="Timezone of --cron (default: the desk's).")
@click.option("--probe", help="module:function from probe_allowlist (default every 10m).")
@click.option(
    "--timeout", help="With --probe: its longest run (default: the desk's probe_timeout)."
)
@click.option("--body", default="", help="Details for the item.")
@priority_option
@click.option("--until", help="Retire the hook at this time.")
@click.option(
    "--done-when", help="Each fire also opens a task with this check (as `task add --done-when`)."
)
def add(owner: str | None, as_json: bool, **request: Any) -> None:
    """Register a wake hook (exactly one of --at, --every, --cron, --probe).

    Examples:
      deskd hook add --for alpha --title "weekly report" --cron "30 8 * * MON" --tz Europe/London
      deskd hook add --for alpha --title "poll CI" --every 15m --until 2026-12-02T18:00
      deskd hook add --for alpha --title "nightly build" --cron "0 2 * * *" --done-when "make"
    """
    with desk_context() as ctx:
        who = acting(ctx, "--for", owner)
        data = add_hook(ctx, HookRequest(owner=who, **request))
    said = f"hook {data['id']} ({data['kind']}) for {who}: next fire {data['next_fire_at']}"
    emit(data, as_json, said)


@hook.command("list")
@click.option("--for", "owner", help="Only this role's hooks.")
@click.option(
    "--all", "include_closed", is_flag=True, help="Include done, cancelled and disabled hooks."
)
def list_(owner: str | None, include_closed: bool, as_json: bool) -> None:
    """Hooks with their next fire, fire count and error streak.

    Examples:
      deskd hook list
      deskd hook list --for alpha --all --json
    """
    rows = on_desk(list_hooks, owner=owner, include_closed=include_closed)
    emit_table(
        rows,
        as_json,
        cells(
            rows,
            "id owner kind spec status next_fire_at fire_count error_streak title",
            missing="-",
        ),
        ["id", "owner", "kind", "spec", "status", "next fire", "fires", "errors", "title"],
        empty="no hooks",
    )


@hook.command("next")
@click.argument("hook_id", type=ID)
@click.option("--count", default=5, show_default=True, type=Number(1, 1000))
def next_(hook_id: int, count: int, as_json: bool) -> None:
    """The hook's next fire times, local and UTC.

    Examples:
      deskd hook next 3 --count 10
    """
    data = on_desk(next_fires, hook_id, count=count)

    def human() -> None:
        click.echo(f"hook {hook_id}: {data['spec']}")
        if not data["fires"]:
            click.echo("  no more fires")
        for f in data["fires"]:
            click.echo(f"  {f['local']}   ({f['utc']})")

    emit(data, as_json, human)


@hook.command("cancel")
@click.argument("hook_id", type=ID)
@click.option("--by", help="The owner (default: DESKD_ROLE).")
def cancel(hook_id: int, by: str | None, as_json: bool) -> None:
    """Cancel a hook; only its owner may.

    Examples:
      deskd hook cancel 3 --by alpha
    """
    with desk_context() as ctx:
        who = acting(ctx, "--by", by)
        data = cancel_hook(ctx, hook_id, by=who)
    emit(data, as_json, f"hook {hook_id} cancelled")
