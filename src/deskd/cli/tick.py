"""``deskd tick``: one tick of the wake engine (dry-run unless told to execute)."""

from __future__ import annotations

import time

import click

from deskd.cli.common import desk_context, emit, json_option


@click.command()
@click.option("--execute", "mode", flag_value="execute", help="Record the plan and launch.")
@click.option(
    "--dry-run", "mode", flag_value="dry", help="Plan and print; write nothing (default)."
)
@click.option("--wait", is_flag=True, help="Wait for the launches this tick started.")
@click.option(
    "--loop", "loop", default=None, help="Tick every DUR forever (containers without cron)."
)
@json_option
def tick(mode: str | None, wait: bool, loop: str | None, as_json: bool) -> None:
    """One tick: fire due wake hooks, plan wakes, and (with --execute) record and launch.

    Dry-run is the default until --execute or DESKD_WAKE_EXECUTE=1: it prints the same
    plan and writes nothing. Overlapping ticks: the second exits 0 at once.

    \b
    Examples:
      deskd tick                 # what would happen now
      deskd tick --execute --json
      DESKD_WAKE_EXECUTE=1 deskd tick
      deskd tick --execute --loop 60s
    """
    from deskd.core.timeparse import parse_duration

    every = parse_duration(loop, what="--loop") if loop else None
    while True:
        _one(mode, as_json, wait)
        if every is None:
            return
        time.sleep(every)


def _one(mode: str | None, as_json: bool, wait: bool) -> None:
    from deskd.service.engine.tick import run_tick

    with desk_context() as ctx:
        execute = mode == "execute" or (mode is None and ctx.settings.execute)
        result = run_tick(ctx, execute=execute, wait=wait)
        data = result.to_json()
        tz = ctx.tz

    def human() -> None:
        from deskd.core.timeparse import local_text

        label = "dry-run" if result.dry_run else "execute"
        click.echo(f"tick {local_text(result.now, tz)} ({label})")
        if result.skipped:
            click.echo(f"  skipped: {result.skipped}")
            return
        for h in data["hooks_fired"]:
            if h["error"]:
                click.echo(f"  hook {h['hook_id']} ({h['owner']}): error: {h['error']}")
            elif h["would"]:
                click.echo(
                    f"  hook {h['hook_id']} ({h['owner']}): would {h['would']}: {h['title']}"
                )
            elif h["fire_at"]:
                missed = f" (+{h['missed']} missed, coalesced)" if h["missed"] else ""
                click.echo(f"  hook {h['hook_id']} ({h['owner']}) fired: {h['title']}{missed}")
        for c in data["resolved"]:
            click.echo(f"  close attempt {c['attempt_id']}: {c['outcome']} ({c['reason']})")
        for a in data["attempts"]:
            skip = f"  [skipped: {a['skipped']}]" if a["skipped"] else ""
            click.echo(f"  {a['role']}: {a['key']} → {a['rung']} — {a['detail']}{skip}")
        for x in data["actions"]:
            verb = "would launch" if result.dry_run else "launch planned"
            click.echo(f"  {verb}: {x['rung']} {x['role']} ({', '.join(x['reasons'])})")
        for d in data["launched"]:
            click.echo(
                f"  started executor for attempt {d['attempt_id']} ({d['role']}, pid {d['pid']})"
            )
        for a in data["died"]:
            click.echo(f"  attempt {a}: its executor died; recorded as failed (transient)")
        for pg in data["pages"]:
            verb = "would page" if result.dry_run else "page queued"
            click.echo(f"  {verb}: {pg['title']}")
        for sent in data.get("pages_sent", []):  # the pager's sends (URLs already masked)
            where = ", ".join(f"{c['name']} {c['status']}" for c in sent["channels"])
            click.echo(f"  page {sent['page_id']} ({sent['kind']}, {sent['role']}): {where}")
        for n in data.get("notes", []):
            click.echo(f"  {n['role']}: {n['text']}")
        if not (
            data["resolved"]
            or data["attempts"]
            or data["actions"]
            or data["pages"]
            or data["hooks_fired"]
            or data.get("pages_sent")
        ):
            click.echo("  nothing due")

    emit(data, as_json, human)
